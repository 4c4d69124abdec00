package dev.rivulet.core.memory;

import dev.rivulet.core.error.InvalidRequestException;
import org.jspecify.annotations.Nullable;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A window of a peer's registered memory: what one side hands the other out of band so it can {@code put},
 * {@code get} or run atomics there (UCT's packed rkey, an RDMA buffer handle).
 *
 * <p>It is a plain value: the address the target expects in RMA requests, the window's length, the remote key, and
 * opaque provider bytes. Where Rivulet's own code checks and executes remote accesses ({@code local}, io_uring, RIO,
 * {@code shm://}) the address is window-relative: the window's first byte is a number below 64 (its position within a
 * 64-byte line, so alignment is kept) and nothing in the handle says where the owner's memory lies. Where a provider
 * or NIC does (libfabric, verbs) it is what the provider's contract names: a virtual address with
 * {@code FI_MR_VIRT_ADDR} and on verbs, an offset otherwise. Nothing
 * here is trusted by the target: it checks key, bounds and access rights again before touching memory. A window can
 * only be narrowed ({@link #slice}), never widened.
 */
public final class RemoteMemory {

    private static final int MAGIC = 0x52564d31; // "RVM1"
    private static final int HEADER_BYTES = 4 + 8 + 8 + 8 + 4;

    private final long address;
    private final long length;
    private final long key;
    private final byte[] providerBytes;

    public RemoteMemory(long address, long length, long key, byte @Nullable [] providerBytes) {
        if (length < 0) {
            throw new InvalidRequestException("negative remote length " + length);
        }
        this.address = address;
        this.length = length;
        this.key = key;
        this.providerBytes = providerBytes == null ? new byte[0] : providerBytes.clone();
    }

    public long address() {
        return address;
    }

    public long length() {
        return length;
    }

    public long key() {
        return key;
    }

    public byte[] providerBytes() {
        return providerBytes.clone();
    }

    /** Exposes the same bytes as {@link #providerBytes()} without a copy, for backends on the hot path. */
    byte[] providerBytesUnsafe() {
        return providerBytes;
    }

    /** A narrower window {@code [offset, offset + length)} of this one. */
    public RemoteMemory slice(long offset, long length) {
        if (offset < 0 || length < 0 || offset > this.length || length > this.length - offset) {
            throw new InvalidRequestException("slice [" + offset + ", +" + length + ") outside remote window of "
                    + this.length + " bytes");
        }
        return new RemoteMemory(address + offset, length, key, providerBytes);
    }

    /** Serialises to a self-describing, versioned byte form (big-endian) suitable for any out-of-band channel. */
    public byte[] toBytes() {
        ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES + providerBytes.length).order(ByteOrder.BIG_ENDIAN);
        b.putInt(MAGIC).putLong(address).putLong(length).putLong(key).putInt(providerBytes.length).put(providerBytes);
        return b.array();
    }

    /** Parses {@link #toBytes()}; malformed input gives an {@link InvalidRequestException}, never a partial handle. */
    public static RemoteMemory fromBytes(byte[] bytes) {
        if (bytes == null || bytes.length < HEADER_BYTES) {
            throw new InvalidRequestException("remote memory handle too short");
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
        if (b.getInt() != MAGIC) {
            throw new InvalidRequestException("not a Rivulet remote memory handle");
        }
        long address = b.getLong();
        long length = b.getLong();
        long key = b.getLong();
        int n = b.getInt();
        if (n < 0 || n != b.remaining()) {
            throw new InvalidRequestException("remote memory handle has " + b.remaining()
                    + " provider bytes, header says " + n);
        }
        byte[] provider = new byte[n];
        b.get(provider);
        return new RemoteMemory(address, length, key, provider);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RemoteMemory r && r.address == address && r.length == length && r.key == key
                && Arrays.equals(r.providerBytes, providerBytes);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(address) * 31 + Long.hashCode(key) * 17 + Long.hashCode(length);
    }

    @Override
    public String toString() {
        return "RemoteMemory[address=0x" + Long.toHexString(address) + ", length=" + length + ", key=0x"
                + Long.toHexString(key) + (providerBytes.length == 0 ? "" : ", provider=" + HexFormat.of()
                .formatHex(providerBytes)) + "]";
    }
}
