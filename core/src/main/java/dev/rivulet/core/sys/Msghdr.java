package dev.rivulet.core.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/**
 * {@code struct msghdr} (56 bytes on LP64 glibc), as {@code IORING_OP_SENDMSG} takes it: a gather list of
 * {@link Iovec}s, no address (connected socket) and no control data. The kernel reads it when the request is
 * issued; the caller keeps it, and the iovec array it points to, unchanged until the completion.
 */
public final class Msghdr {

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("msg_name"),
            JAVA_INT.withName("msg_namelen"),
            MemoryLayout.paddingLayout(4),
            ADDRESS.withName("msg_iov"),
            JAVA_LONG.withName("msg_iovlen"),
            ADDRESS.withName("msg_control"),
            JAVA_LONG.withName("msg_controllen"),
            JAVA_INT.withName("msg_flags"),
            MemoryLayout.paddingLayout(4)
    ).withName("msghdr");

    public static final long SIZE = LAYOUT.byteSize();

    private static final VarHandle IOV = LAYOUT.varHandle(groupElement("msg_iov"));
    private static final VarHandle IOVLEN = LAYOUT.varHandle(groupElement("msg_iovlen"));

    private Msghdr() {
    }

    /** Points {@code msg} (zeroed otherwise) at the first {@code count} entries of {@code iovecs}. */
    public static void setIov(MemorySegment msg, MemorySegment iovecs, int count) {
        IOV.set(msg, 0L, iovecs);
        IOVLEN.set(msg, 0L, (long) count);
    }

    public static long iovLength(MemorySegment msg) {
        return (long) IOVLEN.get(msg, 0L);
    }
}
