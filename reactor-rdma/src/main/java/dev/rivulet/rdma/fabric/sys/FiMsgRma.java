package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct fi_msg_rma} (fi_rma.h): argument of {@link FidEp#writemsg}/{@link FidEp#readmsg}, the RMA calls
 * that take flags such as {@code FI_DELIVERY_COMPLETE}, {@code FI_FENCE}, {@code FI_REMOTE_CQ_DATA} or
 * {@code FI_INJECT}. Owned by the caller; needed only during the call.
 */
public final class FiMsgRma {

    /** {@code struct fi_msg_rma}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("msg_iov"),
            ADDRESS.withName("desc"),
            JAVA_LONG.withName("iov_count"),
            JAVA_LONG.withName("addr"),
            ADDRESS.withName("rma_iov"),
            JAVA_LONG.withName("rma_iov_count"),
            ADDRESS.withName("context"),
            JAVA_LONG.withName("data"))
            .withName("fi_msg_rma");

    /** {@code sizeof(struct fi_msg_rma)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long MSG_IOV = Downcalls.offset(LAYOUT, "msg_iov");
    private static final long DESC = Downcalls.offset(LAYOUT, "desc");
    private static final long IOV_COUNT = Downcalls.offset(LAYOUT, "iov_count");
    private static final long ADDR = Downcalls.offset(LAYOUT, "addr");
    private static final long RMA_IOV = Downcalls.offset(LAYOUT, "rma_iov");
    private static final long RMA_IOV_COUNT = Downcalls.offset(LAYOUT, "rma_iov_count");
    private static final long CONTEXT = Downcalls.offset(LAYOUT, "context");
    private static final long DATA = Downcalls.offset(LAYOUT, "data");

    private FiMsgRma() {
    }

    /** A zeroed instance owned by {@code arena}. */
    public static MemorySegment allocate(Arena arena) {
        return arena.allocate(LAYOUT);
    }

    /** {@code fi_msg_rma.msg_iov}: {@code const struct iovec*} local buffers. */
    public static MemorySegment msgIov(MemorySegment s) {
        return s.get(ADDRESS, MSG_IOV);
    }

    /** Sets {@code fi_msg_rma.msg_iov}. */
    public static void setMsgIov(MemorySegment s, MemorySegment value) {
        s.set(ADDRESS, MSG_IOV, value);
    }

    /** {@code fi_msg_rma.desc}: {@code void**} local descriptors, or NULL. */
    public static MemorySegment desc(MemorySegment s) {
        return s.get(ADDRESS, DESC);
    }

    /** Sets {@code fi_msg_rma.desc}. */
    public static void setDesc(MemorySegment s, MemorySegment value) {
        s.set(ADDRESS, DESC, value);
    }

    /** {@code fi_msg_rma.iov_count}. */
    public static long iovCount(MemorySegment s) {
        return s.get(JAVA_LONG, IOV_COUNT);
    }

    /** Sets {@code fi_msg_rma.iov_count}. */
    public static void setIovCount(MemorySegment s, long value) {
        s.set(JAVA_LONG, IOV_COUNT, value);
    }

    /** {@code fi_msg_rma.addr}: {@code fi_addr_t} target. */
    public static long addr(MemorySegment s) {
        return s.get(JAVA_LONG, ADDR);
    }

    /** Sets {@code fi_msg_rma.addr}. */
    public static void setAddr(MemorySegment s, long value) {
        s.set(JAVA_LONG, ADDR, value);
    }

    /** {@code fi_msg_rma.rma_iov}: {@code const struct fi_rma_iov*} remote regions. */
    public static MemorySegment rmaIov(MemorySegment s) {
        return s.get(ADDRESS, RMA_IOV);
    }

    /** Sets {@code fi_msg_rma.rma_iov}. */
    public static void setRmaIov(MemorySegment s, MemorySegment value) {
        s.set(ADDRESS, RMA_IOV, value);
    }

    /** {@code fi_msg_rma.rma_iov_count}. */
    public static long rmaIovCount(MemorySegment s) {
        return s.get(JAVA_LONG, RMA_IOV_COUNT);
    }

    /** Sets {@code fi_msg_rma.rma_iov_count}. */
    public static void setRmaIovCount(MemorySegment s, long value) {
        s.set(JAVA_LONG, RMA_IOV_COUNT, value);
    }

    /** {@code fi_msg_rma.context}. */
    public static MemorySegment context(MemorySegment s) {
        return s.get(ADDRESS, CONTEXT);
    }

    /** Sets {@code fi_msg_rma.context}. */
    public static void setContext(MemorySegment s, MemorySegment value) {
        s.set(ADDRESS, CONTEXT, value);
    }

    /** {@code fi_msg_rma.data}. */
    public static long data(MemorySegment s) {
        return s.get(JAVA_LONG, DATA);
    }

    /** Sets {@code fi_msg_rma.data}. */
    public static void setData(MemorySegment s, long value) {
        s.set(JAVA_LONG, DATA, value);
    }
}
