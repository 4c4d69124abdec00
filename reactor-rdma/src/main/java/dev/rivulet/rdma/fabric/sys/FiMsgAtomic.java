package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct fi_msg_atomic} (fi_atomic.h): argument of {@link FidEp#atomicmsg}. Owned by the caller. The
 * two enums pair up at 48..56, so there is no padding.
 */
public final class FiMsgAtomic {

    /** {@code struct fi_msg_atomic}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("msg_iov"),
            ADDRESS.withName("desc"),
            JAVA_LONG.withName("iov_count"),
            JAVA_LONG.withName("addr"),
            ADDRESS.withName("rma_iov"),
            JAVA_LONG.withName("rma_iov_count"),
            JAVA_INT.withName("datatype"),
            JAVA_INT.withName("op"),
            ADDRESS.withName("context"),
            JAVA_LONG.withName("data"))
            .withName("fi_msg_atomic");

    /** {@code sizeof(struct fi_msg_atomic)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long MSG_IOV = Downcalls.offset(LAYOUT, "msg_iov");
    private static final long DESC = Downcalls.offset(LAYOUT, "desc");
    private static final long IOV_COUNT = Downcalls.offset(LAYOUT, "iov_count");
    private static final long ADDR = Downcalls.offset(LAYOUT, "addr");
    private static final long RMA_IOV = Downcalls.offset(LAYOUT, "rma_iov");
    private static final long RMA_IOV_COUNT = Downcalls.offset(LAYOUT, "rma_iov_count");
    private static final long DATATYPE = Downcalls.offset(LAYOUT, "datatype");
    private static final long OP = Downcalls.offset(LAYOUT, "op");
    private static final long CONTEXT = Downcalls.offset(LAYOUT, "context");
    private static final long DATA = Downcalls.offset(LAYOUT, "data");

    private FiMsgAtomic() {
    }

    /** A zeroed instance owned by {@code arena}. */
    public static MemorySegment allocate(Arena arena) {
        return arena.allocate(LAYOUT);
    }

    /** {@code fi_msg_atomic.msg_iov}: {@code const struct fi_ioc*} local operands. */
    public static MemorySegment msgIov(MemorySegment s) {
        return s.get(ADDRESS, MSG_IOV);
    }

    /** Sets {@code fi_msg_atomic.msg_iov}. */
    public static void setMsgIov(MemorySegment s, MemorySegment value) {
        s.set(ADDRESS, MSG_IOV, value);
    }

    /** {@code fi_msg_atomic.desc}: {@code void**}. */
    public static MemorySegment desc(MemorySegment s) {
        return s.get(ADDRESS, DESC);
    }

    /** Sets {@code fi_msg_atomic.desc}. */
    public static void setDesc(MemorySegment s, MemorySegment value) {
        s.set(ADDRESS, DESC, value);
    }

    /** {@code fi_msg_atomic.iov_count}. */
    public static long iovCount(MemorySegment s) {
        return s.get(JAVA_LONG, IOV_COUNT);
    }

    /** Sets {@code fi_msg_atomic.iov_count}. */
    public static void setIovCount(MemorySegment s, long value) {
        s.set(JAVA_LONG, IOV_COUNT, value);
    }

    /** {@code fi_msg_atomic.addr}: {@code fi_addr_t} target. */
    public static long addr(MemorySegment s) {
        return s.get(JAVA_LONG, ADDR);
    }

    /** Sets {@code fi_msg_atomic.addr}. */
    public static void setAddr(MemorySegment s, long value) {
        s.set(JAVA_LONG, ADDR, value);
    }

    /** {@code fi_msg_atomic.rma_iov}: {@code const struct fi_rma_ioc*} remote operands. */
    public static MemorySegment rmaIov(MemorySegment s) {
        return s.get(ADDRESS, RMA_IOV);
    }

    /** Sets {@code fi_msg_atomic.rma_iov}. */
    public static void setRmaIov(MemorySegment s, MemorySegment value) {
        s.set(ADDRESS, RMA_IOV, value);
    }

    /** {@code fi_msg_atomic.rma_iov_count}. */
    public static long rmaIovCount(MemorySegment s) {
        return s.get(JAVA_LONG, RMA_IOV_COUNT);
    }

    /** Sets {@code fi_msg_atomic.rma_iov_count}. */
    public static void setRmaIovCount(MemorySegment s, long value) {
        s.set(JAVA_LONG, RMA_IOV_COUNT, value);
    }

    /** {@code fi_msg_atomic.datatype}: {@code enum fi_datatype}. */
    public static int datatype(MemorySegment s) {
        return s.get(JAVA_INT, DATATYPE);
    }

    /** Sets {@code fi_msg_atomic.datatype}. */
    public static void setDatatype(MemorySegment s, int value) {
        s.set(JAVA_INT, DATATYPE, value);
    }

    /** {@code fi_msg_atomic.op}: {@code enum fi_op}. */
    public static int op(MemorySegment s) {
        return s.get(JAVA_INT, OP);
    }

    /** Sets {@code fi_msg_atomic.op}. */
    public static void setOp(MemorySegment s, int value) {
        s.set(JAVA_INT, OP, value);
    }

    /** {@code fi_msg_atomic.context}. */
    public static MemorySegment context(MemorySegment s) {
        return s.get(ADDRESS, CONTEXT);
    }

    /** Sets {@code fi_msg_atomic.context}. */
    public static void setContext(MemorySegment s, MemorySegment value) {
        s.set(ADDRESS, CONTEXT, value);
    }

    /** {@code fi_msg_atomic.data}. */
    public static long data(MemorySegment s) {
        return s.get(JAVA_LONG, DATA);
    }

    /** Sets {@code fi_msg_atomic.data}. */
    public static void setData(MemorySegment s, long value) {
        s.set(JAVA_LONG, DATA, value);
    }
}
