package dev.rivulet.rio.windows.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/**
 * {@code RIORESULT} (24 bytes, {@code mswsockdef.h}): one completion written by RIODequeueCompletion into a
 * caller-owned array. Accessors read element {@code index} in place, so reaping allocates nothing.
 */
public final class RioResult {

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("Status"),            // LONG: 0, or a WSA error code
            JAVA_INT.withName("BytesTransferred"),  // ULONG
            JAVA_LONG.withName("SocketContext"),    // ULONGLONG: the value given to RIOCreateRequestQueue
            JAVA_LONG.withName("RequestContext")    // ULONGLONG: the value given to RIOSend/RIOReceive
    ).withName("RIORESULT");

    public static final long BYTE_SIZE = LAYOUT.byteSize();

    private static final VarHandle STATUS = LAYOUT.varHandle(groupElement("Status"));
    private static final VarHandle BYTES = LAYOUT.varHandle(groupElement("BytesTransferred"));
    private static final VarHandle SOCKET_CONTEXT = LAYOUT.varHandle(groupElement("SocketContext"));
    private static final VarHandle REQUEST_CONTEXT = LAYOUT.varHandle(groupElement("RequestContext"));

    private RioResult() {
    }

    public static int status(MemorySegment array, long index) {
        return (int) STATUS.get(array, index * BYTE_SIZE);
    }

    public static int bytesTransferred(MemorySegment array, long index) {
        return (int) BYTES.get(array, index * BYTE_SIZE);
    }

    public static long socketContext(MemorySegment array, long index) {
        return (long) SOCKET_CONTEXT.get(array, index * BYTE_SIZE);
    }

    public static long requestContext(MemorySegment array, long index) {
        return (long) REQUEST_CONTEXT.get(array, index * BYTE_SIZE);
    }
}
