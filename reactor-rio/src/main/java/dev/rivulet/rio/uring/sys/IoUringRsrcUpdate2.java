package dev.rivulet.rio.uring.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/**
 * {@code struct io_uring_rsrc_update2} (32 bytes): the argument of {@code IORING_REGISTER_BUFFERS_UPDATE}
 * ({@code nr_args} = this struct's size): replaces slots {@code offset .. offset + nr - 1} of a fixed-buffer table
 * with the {@code nr} iovecs at {@code data}; an iovec of {@code {NULL, 0}} empties a slot.
 */
public final class IoUringRsrcUpdate2 {

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("offset"),
            JAVA_INT.withName("resv"),
            JAVA_LONG.withName("data"),
            JAVA_LONG.withName("tags"),
            JAVA_INT.withName("nr"),
            JAVA_INT.withName("resv2")
    ).withName("io_uring_rsrc_update2");

    private static final VarHandle OFFSET = LAYOUT.varHandle(groupElement("offset"));
    private static final VarHandle DATA = LAYOUT.varHandle(groupElement("data"));
    private static final VarHandle TAGS = LAYOUT.varHandle(groupElement("tags"));
    private static final VarHandle NR = LAYOUT.varHandle(groupElement("nr"));

    private IoUringRsrcUpdate2() {
    }

    /** Fills a zeroed struct. */
    public static void set(MemorySegment s, int offset, MemorySegment iovecs, int nr) {
        OFFSET.set(s, 0L, offset);
        DATA.set(s, 0L, iovecs.address());
        TAGS.set(s, 0L, 0L);
        NR.set(s, 0L, nr);
    }
}
