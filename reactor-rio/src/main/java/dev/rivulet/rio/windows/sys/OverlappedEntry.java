package dev.rivulet.rio.windows.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/**
 * {@code OVERLAPPED_ENTRY} (32 bytes on x64, {@code minwinbase.h}): one packet from
 * GetQueuedCompletionStatusEx, for a poller that drains several notifications per wake-up.
 */
public final class OverlappedEntry {

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("lpCompletionKey"),            // ULONG_PTR
            ADDRESS.withName("lpOverlapped"),
            JAVA_LONG.withName("Internal"),                   // ULONG_PTR
            JAVA_INT.withName("dwNumberOfBytesTransferred"),  // DWORD
            MemoryLayout.paddingLayout(4)
    ).withName("OVERLAPPED_ENTRY");

    public static final long BYTE_SIZE = LAYOUT.byteSize();

    private static final VarHandle KEY = LAYOUT.varHandle(groupElement("lpCompletionKey"));
    private static final VarHandle OVERLAPPED = LAYOUT.varHandle(groupElement("lpOverlapped"));
    private static final VarHandle BYTES = LAYOUT.varHandle(groupElement("dwNumberOfBytesTransferred"));

    private OverlappedEntry() {
    }

    public static long completionKey(MemorySegment array, long index) {
        return (long) KEY.get(array, index * BYTE_SIZE);
    }

    public static MemorySegment overlapped(MemorySegment array, long index) {
        return (MemorySegment) OVERLAPPED.get(array, index * BYTE_SIZE);
    }

    public static int bytesTransferred(MemorySegment array, long index) {
        return (int) BYTES.get(array, index * BYTE_SIZE);
    }
}
