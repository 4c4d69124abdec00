package dev.rivulet.rio.uring.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;
import java.util.BitSet;

/**
 * {@code struct io_uring_probe} (16-byte header followed by {@code ops[]} of {@link IoUringProbeOp}), filled by
 * {@code IORING_REGISTER_PROBE}; and, as an instance, the decoded answer: which opcodes this kernel supports.
 *
 * <p>The transport asks it, for example, whether {@code IORING_OP_SEND_ZC} exists before choosing it over
 * {@code IORING_OP_SEND}. An opcode newer than the header (above {@link #lastOp()}) is simply unsupported.
 */
public final class IoUringProbe {

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_BYTE.withName("last_op"),
            JAVA_BYTE.withName("ops_len"),
            JAVA_SHORT.withName("resv"),
            MemoryLayout.sequenceLayout(3, JAVA_INT).withName("resv2")
    ).withName("io_uring_probe");

    /** Room for every opcode an 8-bit {@code op} can name; the kernel clamps to its own IORING_OP_LAST. */
    public static final int MAX_OPS = 256;

    private static final VarHandle LAST_OP = LAYOUT.varHandle(groupElement("last_op"));
    private static final VarHandle OPS_LEN = LAYOUT.varHandle(groupElement("ops_len"));

    private final int lastOp;
    private final BitSet supported;

    private IoUringProbe(int lastOp, BitSet supported) {
        this.lastOp = lastOp;
        this.supported = supported;
    }

    /** Bytes to allocate (zeroed: the kernel rejects a probe buffer that is not) for {@code ops} entries. */
    public static long byteSize(int ops) {
        return LAYOUT.byteSize() + ops * IoUringProbeOp.SIZE;
    }

    /** Decodes a probe buffer the kernel filled. */
    public static IoUringProbe decode(MemorySegment probe) {
        int last = Byte.toUnsignedInt((byte) LAST_OP.get(probe, 0L));
        int len = Byte.toUnsignedInt((byte) OPS_LEN.get(probe, 0L));
        BitSet bits = new BitSet(len);
        for (int i = 0; i < len; i++) {
            long base = LAYOUT.byteSize() + i * IoUringProbeOp.SIZE;
            if ((IoUringProbeOp.flags(probe, base) & IoUringConstants.IO_URING_OP_SUPPORTED) != 0) {
                bits.set(IoUringProbeOp.op(probe, base));
            }
        }
        return new IoUringProbe(last, bits);
    }

    /** The highest opcode the kernel knows. */
    public int lastOp() {
        return lastOp;
    }

    public boolean isSupported(int opcode) {
        return opcode >= 0 && opcode <= lastOp && supported.get(opcode);
    }

    @Override
    public String toString() {
        return "IoUringProbe[lastOp=" + lastOp + ", supported=" + supported + "]";
    }
}
