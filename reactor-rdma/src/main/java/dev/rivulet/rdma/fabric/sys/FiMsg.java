package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;
import dev.rivulet.core.sys.Iovec;
import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct fi_msg} (fi_endpoint.h): argument of {@link FidEp#sendmsg}/{@link FidEp#recvmsg}, the calls that
 * take per-operation flags. Owned by the caller; it only needs to live for the duration of the call.
 */
public final class FiMsg {

    /** {@code struct fi_msg}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("msg_iov"),
            ADDRESS.withName("desc"),
            JAVA_LONG.withName("iov_count"),
            JAVA_LONG.withName("addr"),
            ADDRESS.withName("context"),
            JAVA_LONG.withName("data"))
            .withName("fi_msg");

    /** {@code sizeof(struct fi_msg)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long MSG_IOV = Downcalls.offset(LAYOUT, "msg_iov");
    private static final long DESC = Downcalls.offset(LAYOUT, "desc");
    private static final long IOV_COUNT = Downcalls.offset(LAYOUT, "iov_count");
    private static final long ADDR = Downcalls.offset(LAYOUT, "addr");
    private static final long CONTEXT = Downcalls.offset(LAYOUT, "context");
    private static final long DATA = Downcalls.offset(LAYOUT, "data");

    private FiMsg() {
    }

    /** A zeroed instance owned by {@code arena}. */
    public static MemorySegment allocate(Arena arena) {
        return arena.allocate(LAYOUT);
    }

    /** {@code fi_msg.msg_iov}: {@code const struct iovec*} ({@link Iovec} array). */
    public static MemorySegment msgIov(MemorySegment s) {
        return s.get(ADDRESS, MSG_IOV);
    }

    /** Sets {@code fi_msg.msg_iov}. */
    public static void setMsgIov(MemorySegment s, MemorySegment value) {
        s.set(ADDRESS, MSG_IOV, value);
    }

    /** {@code fi_msg.desc}: {@code void**}: one {@code fi_mr_desc} per iov, or NULL without {@code FI_MR_LOCAL}. */
    public static MemorySegment desc(MemorySegment s) {
        return s.get(ADDRESS, DESC);
    }

    /** Sets {@code fi_msg.desc}. */
    public static void setDesc(MemorySegment s, MemorySegment value) {
        s.set(ADDRESS, DESC, value);
    }

    /** {@code fi_msg.iov_count}. */
    public static long iovCount(MemorySegment s) {
        return s.get(JAVA_LONG, IOV_COUNT);
    }

    /** Sets {@code fi_msg.iov_count}. */
    public static void setIovCount(MemorySegment s, long value) {
        s.set(JAVA_LONG, IOV_COUNT, value);
    }

    /** {@code fi_msg.addr}: {@code fi_addr_t} peer. */
    public static long addr(MemorySegment s) {
        return s.get(JAVA_LONG, ADDR);
    }

    /** Sets {@code fi_msg.addr}. */
    public static void setAddr(MemorySegment s, long value) {
        s.set(JAVA_LONG, ADDR, value);
    }

    /** {@code fi_msg.context}: operation context ({@link FiContext2} slot). */
    public static MemorySegment context(MemorySegment s) {
        return s.get(ADDRESS, CONTEXT);
    }

    /** Sets {@code fi_msg.context}. */
    public static void setContext(MemorySegment s, MemorySegment value) {
        s.set(ADDRESS, CONTEXT, value);
    }

    /** {@code fi_msg.data}: remote CQ data with {@code FI_REMOTE_CQ_DATA}. */
    public static long data(MemorySegment s) {
        return s.get(JAVA_LONG, DATA);
    }

    /** Sets {@code fi_msg.data}. */
    public static void setData(MemorySegment s, long value) {
        s.set(JAVA_LONG, DATA, value);
    }
}
