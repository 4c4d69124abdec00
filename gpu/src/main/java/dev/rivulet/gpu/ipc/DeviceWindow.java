package dev.rivulet.gpu.ipc;

import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.RemoteMemory;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Set;

/**
 * What a peer process of the same host needs to reach a granted device buffer ({@code DeviceGrant.remote()}): a
 * plain value, sent like a {@link RemoteMemory} ({@link #toBytes()}, {@link #fromBytes(byte[])}). It names the
 * whole allocation (an IPC handle always does) and the part of it the peer may reach ({@link #offset()},
 * {@link #length()}, narrowed with {@link #slice}), the rights granted, the host it can be opened on, and the
 * exporter's control word for this grant, through which every use is counted and revocation is seen.
 *
 * @param host       the identity of the exporter's host (its boot id)
 * @param kind       the exporter's memory type ({@code cuda}, {@code host-stand-in})
 * @param token      random identity of the grant, 16 bytes
 * @param handle     the memory type's IPC handle of the allocation
 * @param allocation bytes of the whole allocation
 * @param offset     first byte the peer may reach, in the allocation
 * @param length     bytes the peer may reach from {@code offset}
 * @param rights     {@link Access#REMOTE_READ} and/or {@link Access#REMOTE_WRITE}
 * @param control    the exporter's control block of the grant (atomics and reads)
 */
public record DeviceWindow(String host, String kind, byte[] token, byte[] handle, long allocation, long offset,
                           long length, Set<Access> rights, RemoteMemory control) {

    private static final int MAGIC = 0x52445731; // "RDW1"
    private static final int MAX_FIELD = 4096;

    public DeviceWindow {
        if (offset < 0 || length < 0 || offset > allocation || length > allocation - offset) {
            throw new InvalidRequestException("device window [" + offset + ", +" + length
                    + ") outside an allocation of " + allocation + " bytes");
        }
        token = token.clone();
        handle = handle.clone();
        rights = rights.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(rights));
    }

    /** A narrower window {@code [offset, offset + length)} of this one (offsets relative to this window). */
    public DeviceWindow slice(long offset, long length) {
        if (offset < 0 || length < 0 || offset > this.length || length > this.length - offset) {
            throw new InvalidRequestException("slice [" + offset + ", +" + length + ") outside device window of "
                    + this.length + " bytes");
        }
        return new DeviceWindow(host, kind, token, handle, allocation, this.offset + offset, length, rights, control);
    }

    @Override
    public byte[] token() {
        return token.clone();
    }

    @Override
    public byte[] handle() {
        return handle.clone();
    }

    /** Big-endian, versioned bytes for any out-of-band channel or a Rivulet message. */
    public byte[] toBytes() {
        byte[] h = host.getBytes(StandardCharsets.UTF_8);
        byte[] k = kind.getBytes(StandardCharsets.UTF_8);
        byte[] c = control.toBytes();
        ByteBuffer b = ByteBuffer.allocate(4 + 5 * 4 + h.length + k.length + token.length + handle.length + c.length
                + 3 * 8 + 4).order(ByteOrder.BIG_ENDIAN);
        b.putInt(MAGIC);
        putBytes(b, h);
        putBytes(b, k);
        putBytes(b, token);
        putBytes(b, handle);
        b.putLong(allocation).putLong(offset).putLong(length).putInt(rightsBits(rights));
        putBytes(b, c);
        return b.array();
    }

    /** Parses {@link #toBytes()}; malformed input gives an {@link InvalidRequestException}, never a partial window. */
    public static DeviceWindow fromBytes(byte[] bytes) {
        if (bytes == null) {
            throw new InvalidRequestException("device window bytes are null");
        }
        try {
            ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
            if (b.getInt() != MAGIC) {
                throw new InvalidRequestException("not a Rivulet device window");
            }
            String host = new String(getBytes(b), StandardCharsets.UTF_8);
            String kind = new String(getBytes(b), StandardCharsets.UTF_8);
            byte[] token = getBytes(b);
            byte[] handle = getBytes(b);
            long allocation = b.getLong();
            long offset = b.getLong();
            long length = b.getLong();
            Set<Access> rights = rights(b.getInt());
            RemoteMemory control = RemoteMemory.fromBytes(getBytes(b));
            if (b.hasRemaining()) {
                throw new InvalidRequestException("device window has " + b.remaining() + " trailing bytes");
            }
            return new DeviceWindow(host, kind, token, handle, allocation, offset, length, rights, control);
        } catch (BufferUnderflowException e) {
            throw new InvalidRequestException("device window truncated");
        }
    }

    private static void putBytes(ByteBuffer b, byte[] v) {
        b.putInt(v.length).put(v);
    }

    private static byte[] getBytes(ByteBuffer b) {
        int n = b.getInt();
        if (n < 0 || n > MAX_FIELD || n > b.remaining()) {
            throw new InvalidRequestException("device window field of " + n + " bytes");
        }
        byte[] v = new byte[n];
        b.get(v);
        return v;
    }

    private static int rightsBits(Set<Access> rights) {
        int bits = 0;
        for (Access a : rights) {
            bits |= 1 << a.ordinal();
        }
        return bits;
    }

    private static Set<Access> rights(int bits) {
        EnumSet<Access> s = EnumSet.noneOf(Access.class);
        for (Access a : Access.values()) {
            if ((bits & (1 << a.ordinal())) != 0) {
                s.add(a);
            }
        }
        return s;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DeviceWindow w && w.host.equals(host) && w.kind.equals(kind)
                && Arrays.equals(w.token, token) && Arrays.equals(w.handle, handle) && w.allocation == allocation
                && w.offset == offset && w.length == length && w.rights.equals(rights) && w.control.equals(control);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(token) * 31 + Long.hashCode(offset) * 17 + Long.hashCode(length);
    }

    @Override
    public String toString() {
        return "DeviceWindow[" + kind + ", token=" + HexFormat.of().formatHex(token) + ", offset=" + offset
                + ", length=" + length + ", rights=" + rights + "]";
    }
}
