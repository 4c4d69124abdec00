package dev.rivulet.core.memory;

import java.lang.foreign.MemorySegment;

/**
 * What a backend returns when it registered a segment with its provider: the remote key peers use, the local
 * descriptor its post calls need ({@code fi_mr_desc}, the lkey; {@link MemorySegment#NULL} where none is needed),
 * provider bytes that travel inside {@link RemoteMemory}, and how to undo the registration. {@code remoteBase} is the
 * address a peer names for the region's first byte: the virtual address where the provider wants virtual addresses
 * ({@code FI_MR_VIRT_ADDR}, verbs), 0 where it wants offsets.
 */
public record NativeRegistration(long key, long remoteBase, MemorySegment descriptor, byte[] providerBytes,
                                 Runnable release) {

    public NativeRegistration {
        descriptor = descriptor == null ? MemorySegment.NULL : descriptor;
        providerBytes = providerBytes == null ? new byte[0] : providerBytes.clone();
        release = release == null ? () -> { } : release;
    }

    @Override
    public byte[] providerBytes() {
        return providerBytes.clone();
    }
}
