package dev.rivulet.rdma.verbs.sys;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * {@code struct ibv_wc} (verbs.h): one work completion, as {@link IbvCq#poll} writes them into an array. The
 * accessors take the array and an index so reaping allocates nothing. For a failed completion only {@code wr_id},
 * {@code status}, {@code vendor_err} and {@code qp_num} are valid (ibv_poll_cq(3)); the opcode is not.
 */
public final class IbvWc {

    /** {@code struct ibv_wc}; {@code imm_data}/{@code invalidated_rkey} are an anonymous union in C. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("wr_id"),
            JAVA_INT.withName("status"),
            JAVA_INT.withName("opcode"),
            JAVA_INT.withName("vendor_err"),
            JAVA_INT.withName("byte_len"),
            MemoryLayout.unionLayout(
                    JAVA_INT.withName("imm_data"),
                    JAVA_INT.withName("invalidated_rkey")).withName("$anon_imm"),
            JAVA_INT.withName("qp_num"),
            JAVA_INT.withName("src_qp"),
            JAVA_INT.withName("wc_flags"),
            JAVA_SHORT.withName("pkey_index"),
            JAVA_SHORT.withName("slid"),
            JAVA_BYTE.withName("sl"),
            JAVA_BYTE.withName("dlid_path_bits"),
            MemoryLayout.paddingLayout(2))
            .withName("ibv_wc");

    /** {@code sizeof(struct ibv_wc)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** A 32-bit field in network byte order ({@code __be32}). */
    private static final ValueLayout.OfInt NETWORK_INT = JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);

    private static final long WR_ID = Downcalls.offset(LAYOUT, "wr_id");
    private static final long STATUS = Downcalls.offset(LAYOUT, "status");
    private static final long OPCODE = Downcalls.offset(LAYOUT, "opcode");
    private static final long VENDOR_ERR = Downcalls.offset(LAYOUT, "vendor_err");
    private static final long BYTE_LEN = Downcalls.offset(LAYOUT, "byte_len");
    private static final long IMM_DATA = Downcalls.offset(LAYOUT, "$anon_imm", "imm_data");
    private static final long QP_NUM = Downcalls.offset(LAYOUT, "qp_num");
    private static final long WC_FLAGS = Downcalls.offset(LAYOUT, "wc_flags");

    private IbvWc() {
    }

    /** Room for {@code count} completions, owned by {@code arena}. */
    public static MemorySegment allocateArray(Arena arena, int count) {
        return arena.allocate(LAYOUT, count);
    }

    public static long wrId(MemorySegment wcs, int i) {
        return wcs.get(JAVA_LONG, SIZE * i + WR_ID);
    }

    /** {@code IBV_WC_SUCCESS} or the error ({@link Ibverbs#wcStatusStr} names it). */
    public static int status(MemorySegment wcs, int i) {
        return wcs.get(JAVA_INT, SIZE * i + STATUS);
    }

    public static int opcode(MemorySegment wcs, int i) {
        return wcs.get(JAVA_INT, SIZE * i + OPCODE);
    }

    /** The provider's own error detail (syndrome), for the error text. */
    public static int vendorErr(MemorySegment wcs, int i) {
        return wcs.get(JAVA_INT, SIZE * i + VENDOR_ERR);
    }

    /** Bytes received (receives) or read; not set for sends. */
    public static long byteLen(MemorySegment wcs, int i) {
        return Integer.toUnsignedLong(wcs.get(JAVA_INT, SIZE * i + BYTE_LEN));
    }

    /** The immediate data in host order (the struct holds it in network order); valid with {@code IBV_WC_WITH_IMM}. */
    public static int immData(MemorySegment wcs, int i) {
        return wcs.get(NETWORK_INT, SIZE * i + IMM_DATA);
    }

    public static int qpNum(MemorySegment wcs, int i) {
        return wcs.get(JAVA_INT, SIZE * i + QP_NUM);
    }

    /** {@code IBV_WC_WITH_IMM}, {@code IBV_WC_GRH}, ... */
    public static int wcFlags(MemorySegment wcs, int i) {
        return wcs.get(JAVA_INT, SIZE * i + WC_FLAGS);
    }
}
