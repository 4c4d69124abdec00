package dev.rivulet.rdma.verbs.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * {@code struct ibv_send_wr} (verbs.h): one request on a queue pair's send queue, posted with {@link IbvQp#postSend}.
 *
 * <p>The encoders below each fill a whole request (zeroing it first, so no field of an earlier use survives in a
 * union) for the operations the transport posts; {@code next} chains requests into one post. C's anonymous unions
 * ({@code imm_data}/{@code invalidate_rkey}, {@code bind_mw}/{@code tso}) have names starting with {@code $anon} here:
 * their members belong to the struct itself. Immediate data travels in network byte order, as the header says.
 */
public final class IbvSendWr {

    private static final StructLayout MW_BIND_INFO = MemoryLayout.structLayout(
            ADDRESS.withName("mr"),
            JAVA_LONG.withName("addr"),
            JAVA_LONG.withName("length"),
            JAVA_INT.withName("mw_access_flags"),
            MemoryLayout.paddingLayout(4))
            .withName("ibv_mw_bind_info");

    /** {@code struct ibv_send_wr}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("wr_id"),
            ADDRESS.withName("next"),
            ADDRESS.withName("sg_list"),
            JAVA_INT.withName("num_sge"),
            JAVA_INT.withName("opcode"),
            JAVA_INT.withName("send_flags"),
            MemoryLayout.unionLayout(
                    JAVA_INT.withName("imm_data"),
                    JAVA_INT.withName("invalidate_rkey")).withName("$anon_imm"),
            MemoryLayout.unionLayout(
                    MemoryLayout.structLayout(
                            JAVA_LONG.withName("remote_addr"),
                            JAVA_INT.withName("rkey"),
                            MemoryLayout.paddingLayout(4)).withName("rdma"),
                    MemoryLayout.structLayout(
                            JAVA_LONG.withName("remote_addr"),
                            JAVA_LONG.withName("compare_add"),
                            JAVA_LONG.withName("swap"),
                            JAVA_INT.withName("rkey"),
                            MemoryLayout.paddingLayout(4)).withName("atomic"),
                    MemoryLayout.structLayout(
                            ADDRESS.withName("ah"),
                            JAVA_INT.withName("remote_qpn"),
                            JAVA_INT.withName("remote_qkey")).withName("ud")).withName("wr"),
            MemoryLayout.unionLayout(
                    MemoryLayout.structLayout(JAVA_INT.withName("remote_srqn")).withName("xrc")).withName("qp_type"),
            MemoryLayout.paddingLayout(4),
            MemoryLayout.unionLayout(
                    MemoryLayout.structLayout(
                            ADDRESS.withName("mw"),
                            JAVA_INT.withName("rkey"),
                            MemoryLayout.paddingLayout(4),
                            MW_BIND_INFO.withName("bind_info")).withName("bind_mw"),
                    MemoryLayout.structLayout(
                            ADDRESS.withName("hdr"),
                            JAVA_SHORT.withName("hdr_sz"),
                            JAVA_SHORT.withName("mss"),
                            MemoryLayout.paddingLayout(4)).withName("tso")).withName("$anon_bind"))
            .withName("ibv_send_wr");

    /** {@code sizeof(struct ibv_send_wr)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** A 32-bit field in network byte order ({@code __be32}). */
    private static final ValueLayout.OfInt NETWORK_INT = JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);

    private static final long WR_ID = Downcalls.offset(LAYOUT, "wr_id");
    private static final long NEXT = Downcalls.offset(LAYOUT, "next");
    private static final long SG_LIST = Downcalls.offset(LAYOUT, "sg_list");
    private static final long NUM_SGE = Downcalls.offset(LAYOUT, "num_sge");
    private static final long OPCODE = Downcalls.offset(LAYOUT, "opcode");
    private static final long SEND_FLAGS = Downcalls.offset(LAYOUT, "send_flags");
    private static final long IMM_DATA = Downcalls.offset(LAYOUT, "$anon_imm", "imm_data");
    private static final long RDMA_REMOTE_ADDR = Downcalls.offset(LAYOUT, "wr", "rdma", "remote_addr");
    private static final long RDMA_RKEY = Downcalls.offset(LAYOUT, "wr", "rdma", "rkey");
    private static final long ATOMIC_REMOTE_ADDR = Downcalls.offset(LAYOUT, "wr", "atomic", "remote_addr");
    private static final long ATOMIC_COMPARE_ADD = Downcalls.offset(LAYOUT, "wr", "atomic", "compare_add");
    private static final long ATOMIC_SWAP = Downcalls.offset(LAYOUT, "wr", "atomic", "swap");
    private static final long ATOMIC_RKEY = Downcalls.offset(LAYOUT, "wr", "atomic", "rkey");

    private IbvSendWr() {
    }

    /**
     * A send carrying {@code imm} (host order; stored in network order) as immediate data: a message when
     * {@code numSge > 0}, a zero-byte protocol word when {@code sgList} is NULL and {@code numSge} 0. The peer's
     * receive completes with {@code IBV_WC_WITH_IMM} and the same value.
     */
    public static void sendWithImm(MemorySegment s, long wrId, MemorySegment sgList, int numSge, int imm,
                                   int sendFlags) {
        common(s, wrId, sgList, numSge, VerbsConstants.IBV_WR_SEND_WITH_IMM, sendFlags);
        s.set(NETWORK_INT, IMM_DATA, imm);
    }

    /** An RDMA write of the gather list to {@code remoteAddr} under {@code rkey}. */
    public static void rdmaWrite(MemorySegment s, long wrId, MemorySegment sgList, int numSge, long remoteAddr,
                                 int rkey, int sendFlags) {
        common(s, wrId, sgList, numSge, VerbsConstants.IBV_WR_RDMA_WRITE, sendFlags);
        s.set(JAVA_LONG, RDMA_REMOTE_ADDR, remoteAddr);
        s.set(JAVA_INT, RDMA_RKEY, rkey);
    }

    /**
     * An RDMA read from {@code remoteAddr} under {@code rkey} into the scatter list. With no entries it reads nothing:
     * the zero-length read the transport's flush posts, for which the target checks no key.
     */
    public static void rdmaRead(MemorySegment s, long wrId, MemorySegment sgList, int numSge, long remoteAddr,
                                int rkey, int sendFlags) {
        common(s, wrId, sgList, numSge, VerbsConstants.IBV_WR_RDMA_READ, sendFlags);
        s.set(JAVA_LONG, RDMA_REMOTE_ADDR, remoteAddr);
        s.set(JAVA_INT, RDMA_RKEY, rkey);
    }

    /**
     * A 64-bit fetch-and-add of {@code add} at {@code remoteAddr} (8-byte aligned); the previous value lands in the
     * 8-byte scatter entry.
     */
    public static void fetchAdd(MemorySegment s, long wrId, MemorySegment sge, long remoteAddr, int rkey, long add,
                                int sendFlags) {
        common(s, wrId, sge, 1, VerbsConstants.IBV_WR_ATOMIC_FETCH_AND_ADD, sendFlags);
        s.set(JAVA_LONG, ATOMIC_REMOTE_ADDR, remoteAddr);
        s.set(JAVA_LONG, ATOMIC_COMPARE_ADD, add);
        s.set(JAVA_INT, ATOMIC_RKEY, rkey);
    }

    /**
     * A 64-bit compare-and-swap at {@code remoteAddr} (8-byte aligned): {@code swap} is stored if the word equals
     * {@code compare}; the previous value lands in the 8-byte scatter entry either way.
     */
    public static void compareSwap(MemorySegment s, long wrId, MemorySegment sge, long remoteAddr, int rkey,
                                   long compare, long swap, int sendFlags) {
        common(s, wrId, sge, 1, VerbsConstants.IBV_WR_ATOMIC_CMP_AND_SWP, sendFlags);
        s.set(JAVA_LONG, ATOMIC_REMOTE_ADDR, remoteAddr);
        s.set(JAVA_LONG, ATOMIC_COMPARE_ADD, compare);
        s.set(JAVA_LONG, ATOMIC_SWAP, swap);
        s.set(JAVA_INT, ATOMIC_RKEY, rkey);
    }

    private static void common(MemorySegment s, long wrId, MemorySegment sgList, int numSge, int opcode,
                               int sendFlags) {
        s.fill((byte) 0);
        s.set(JAVA_LONG, WR_ID, wrId);
        s.set(ADDRESS, SG_LIST, sgList);
        s.set(JAVA_INT, NUM_SGE, numSge);
        s.set(JAVA_INT, OPCODE, opcode);
        s.set(JAVA_INT, SEND_FLAGS, sendFlags);
    }

    /** Sets {@code next}: the request posted right after this one in the same call, or NULL to end the chain. */
    public static void setNext(MemorySegment s, MemorySegment next) {
        s.set(ADDRESS, NEXT, next);
    }

    /** {@code send_flags}, to add {@code IBV_SEND_SIGNALED} or {@code IBV_SEND_FENCE} once the chain is known. */
    public static int sendFlags(MemorySegment s) {
        return s.get(JAVA_INT, SEND_FLAGS);
    }

    public static void setSendFlags(MemorySegment s, int flags) {
        s.set(JAVA_INT, SEND_FLAGS, flags);
    }

    public static long wrId(MemorySegment s) {
        return s.get(JAVA_LONG, WR_ID);
    }

    public static int opcode(MemorySegment s) {
        return s.get(JAVA_INT, OPCODE);
    }
}
