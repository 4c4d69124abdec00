package dev.rivulet.core.memory;

import org.jspecify.annotations.Nullable;

import java.lang.foreign.MemorySegment;

/**
 * What a backend returns when it registered a segment with its provider: the remote key peers use, the local
 * descriptor its post calls need ({@code fi_mr_desc}, the lkey; {@link MemorySegment#NULL} where none is needed),
 * provider bytes that travel inside {@link RemoteMemory}, and how to undo the registration. {@code remoteBase} is the
 * address a peer names for the segment's first byte: the virtual address where the provider's contract is virtual
 * addresses ({@code FI_MR_VIRT_ADDR}, verbs), a small window-relative number where Rivulet's own code checks and
 * executes remote accesses ({@link #checkedInSoftware}).
 */
public record NativeRegistration(long key, long remoteBase, MemorySegment descriptor, byte[] providerBytes,
                                 Runnable release) {

    /**
     * The alignment a software-checked address keeps: up to this many bytes, an address a peer names is aligned
     * exactly as the memory it names, so an atomic's alignment is decided the same at the initiator and the target.
     */
    public static final int SOFTWARE_ADDRESS_ALIGNMENT = 64;

    public NativeRegistration {
        descriptor = descriptor == null ? MemorySegment.NULL : descriptor;
        providerBytes = providerBytes == null ? new byte[0] : providerBytes.clone();
        release = release == null ? () -> { } : release;
    }

    /**
     * A registration on a transport whose target checks and executes remote accesses itself (in-JVM, io_uring, RIO,
     * {@code shm://}): no provider state, the domain's random key, and an address space of the segment's own. A peer
     * names the segment's first byte by its position within a {@value #SOFTWARE_ADDRESS_ALIGNMENT}-byte line (0 to
     * 63) and every later byte by adding its offset, so a handle tells a grantee nothing about where the owner's
     * memory lies (address-space layout randomisation moves memory by whole pages, never within a line) while an
     * address stays aligned exactly as the byte it names, up to 64 bytes: an atomic on an unaligned word is refused
     * by the initiator's check, and an aligned address is an aligned word at the target.
     */
    public static NativeRegistration checkedInSoftware(MemorySegment segment, long key,
                                                       byte @Nullable [] providerBytes,
                                                       @Nullable Runnable release) {
        return new NativeRegistration(key, segment.address() & (SOFTWARE_ADDRESS_ALIGNMENT - 1), MemorySegment.NULL,
                providerBytes, release);
    }

    @Override
    public byte[] providerBytes() {
        return providerBytes.clone();
    }
}
