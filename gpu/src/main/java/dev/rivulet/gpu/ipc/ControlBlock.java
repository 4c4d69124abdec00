package dev.rivulet.gpu.ipc;

import dev.rivulet.core.memory.Access;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.EnumSet;
import java.util.Set;

/**
 * The layout of a grant's control block, 64 bytes of the exporter's registered host memory granted to the importing
 * connection for remote reads and atomics. A CUDA IPC mapping cannot be revoked by the exporter, so the importer
 * keeps a lease through it:
 *
 * <ul>
 *   <li>bytes 0–7, the control word: bit 62 {@link #REVOKED}; bits 32–61 the importer's open mappings
 *       ({@link #MAPPED} each); bits 0–31 the importer's operations in flight ({@link #OPERATION} each). The
 *       importer adds to it before and subtracts after each copy; the exporter sets {@code REVOKED} and waits for
 *       the counts to reach zero.</li>
 *   <li>bytes 8–15 and 16–23, the granted offset and length; 24–31 the granted rights: a window is checked against
 *       what was really granted, whatever it says itself.</li>
 *   <li>bytes 32–63, SHA-256 of the grant's token, memory type, handle and allocation size: a window whose handle
 *       or token was changed does not match.</li>
 * </ul>
 *
 * Big-endian fields but the word, which is a native-order 64-bit atomic as the transport applies it.
 */
final class ControlBlock {

    static final long BYTES = 64;
    static final long WORD_BYTES = 8;
    static final long GRANT_OFFSET = 8;
    static final int GRANT_BYTES = 56;

    static final long OPERATION = 1L;
    static final long MAPPED = 1L << 32;
    static final long REVOKED = 1L << 62;
    private static final long COUNTS = REVOKED - 1;

    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();

    /** What the exporter granted, as read back by the importer. */
    record Granted(long offset, long length, Set<Access> rights, byte[] digest) {

        boolean covers(DeviceWindow w) {
            return w.offset() >= offset && w.length() <= length - (w.offset() - offset)
                    && rights.containsAll(w.rights());
        }

        boolean matches(DeviceWindow w) {
            return MessageDigest.isEqual(digest, ControlBlock.digest(w.token(), w.kind(), w.handle(), w.allocation()));
        }
    }

    private ControlBlock() {
    }

    static boolean revoked(long word) {
        return (word & REVOKED) != 0;
    }

    /** Whether no mapping or operation of the importer remains. */
    static boolean idle(long word) {
        return (word & COUNTS) == 0;
    }

    /** Writes a fresh block for a grant (the exporter, before granting it). */
    static void initialise(MemorySegment block, byte[] token, String kind, byte[] handle, long allocation,
                           Set<Access> rights) {
        block.fill((byte) 0);
        ByteBuffer b = block.asSlice(GRANT_OFFSET, GRANT_BYTES).asByteBuffer().order(ByteOrder.BIG_ENDIAN);
        b.putLong(0).putLong(allocation).putLong(bits(rights)).put(digest(token, kind, handle, allocation));
    }

    /** Sets {@link #REVOKED} atomically, as the transport's remote atomics apply to the same word. */
    static void revoke(MemorySegment block) {
        WORD.getAndBitwiseOr(block, 0L, REVOKED);
    }

    static long word(MemorySegment block) {
        return (long) WORD.getVolatile(block, 0L);
    }

    /** Parses bytes 8–63 as read by the importer. */
    static Granted granted(MemorySegment grant) {
        ByteBuffer b = grant.asByteBuffer().order(ByteOrder.BIG_ENDIAN);
        long offset = b.getLong();
        long length = b.getLong();
        long rightsBits = b.getLong();
        byte[] digest = new byte[32];
        b.get(digest);
        EnumSet<Access> rights = EnumSet.noneOf(Access.class);
        for (Access a : Access.values()) {
            if ((rightsBits & (1L << a.ordinal())) != 0) {
                rights.add(a);
            }
        }
        return new Granted(offset, length, rights, digest);
    }

    private static long bits(Set<Access> rights) {
        long bits = 0;
        for (Access a : rights) {
            bits |= 1L << a.ordinal();
        }
        return bits;
    }

    static byte[] digest(byte[] token, String kind, byte[] handle, long allocation) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update(token);
            d.update(kind.getBytes(StandardCharsets.UTF_8));
            d.update(handle);
            d.update(ByteBuffer.allocate(8).putLong(allocation).array());
            return d.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
