package dev.rivulet.rio.windows.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code OVERLAPPED} (32 bytes on x64, {@code minwinbase.h}). RIO only needs it as an opaque, stable tag: in IOCP
 * notification mode each completion queue gets its own, and GetQueuedCompletionStatus hands its address back.
 * Allocate it zeroed from an arena that outlives the CQ; nothing reads its fields.
 */
public final class Overlapped {

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("Internal"),      // ULONG_PTR
            JAVA_LONG.withName("InternalHigh"),  // ULONG_PTR
            MemoryLayout.unionLayout(            // anonymous in C
                    MemoryLayout.structLayout(JAVA_INT.withName("Offset"), JAVA_INT.withName("OffsetHigh")),
                    ADDRESS.withName("Pointer")),
            ADDRESS.withName("hEvent")
    ).withName("OVERLAPPED");

    private Overlapped() {
    }
}
