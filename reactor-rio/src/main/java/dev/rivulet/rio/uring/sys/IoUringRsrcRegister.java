package dev.rivulet.rio.uring.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/**
 * {@code struct io_uring_rsrc_register} (32 bytes): the argument of {@code IORING_REGISTER_BUFFERS2}, whose
 * {@code nr_args} is this struct's size. With {@link IoUringConstants#IORING_RSRC_REGISTER_SPARSE} and
 * {@code data = 0} it creates a table of {@code nr} empty fixed-buffer slots.
 */
public final class IoUringRsrcRegister {

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("nr"),
            JAVA_INT.withName("flags"),
            JAVA_LONG.withName("resv2"),
            JAVA_LONG.withName("data"),
            JAVA_LONG.withName("tags")
    ).withName("io_uring_rsrc_register");

    private static final VarHandle NR = LAYOUT.varHandle(groupElement("nr"));
    private static final VarHandle FLAGS = LAYOUT.varHandle(groupElement("flags"));
    private static final VarHandle DATA = LAYOUT.varHandle(groupElement("data"));
    private static final VarHandle TAGS = LAYOUT.varHandle(groupElement("tags"));

    private IoUringRsrcRegister() {
    }

    /** Fills a zeroed struct. {@code iovecs} may be {@link MemorySegment#NULL} for a sparse table. */
    public static void set(MemorySegment s, int nr, int flags, MemorySegment iovecs) {
        NR.set(s, 0L, nr);
        FLAGS.set(s, 0L, flags);
        DATA.set(s, 0L, iovecs.address());
        TAGS.set(s, 0L, 0L);
    }
}
