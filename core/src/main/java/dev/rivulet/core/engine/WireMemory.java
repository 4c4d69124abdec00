package dev.rivulet.core.engine;

import dev.rivulet.core.error.InvalidMemoryException;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.internal.MemoryAccess;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.AccessScope;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RegisteredSlice;
import dev.rivulet.core.spi.Incubating;
import org.jspecify.annotations.Nullable;

import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.Set;

/**
 * What a wire may do with its transport's memory domain beyond the application API: check an incoming remote
 * access, hand a peer memory for one transfer, read a region's provider descriptor. These operations stay
 * package-private on the memory types so that an application cannot forge a remote access; a transport gets this
 * view of its own domain alone from {@link AbstractTransport#wireMemory()} and passes it to its wires.
 */
@Incubating
public final class WireMemory {

    private static final MemoryAccess MEMORY = Internals.memory();

    private final MemoryDomain domain;

    WireMemory(MemoryDomain domain) {
        this.domain = Objects.requireNonNull(domain);
    }

    /** The domain this view acts on. */
    public MemoryDomain domain() {
        return domain;
    }

    /**
     * The target's check of a remote access arriving through {@code requester} (the wire): a live grant of
     * {@code key} for that connection, with the {@code needed} right, whose window holds
     * {@code [address, address + length)}. Returns the grant pinned (give it back with {@link #release(Grant)} when
     * the access is done), or null when refused; a peer is told no more than {@link MemoryDomain#REFUSED}.
     */
    public @Nullable Grant tryResolveRemote(long key, long address, long length, Access needed,
                                            AccessScope requester) {
        return MEMORY.tryResolveRemote(domain, key, address, length, needed, requester);
    }

    /**
     * As {@link #tryResolveRemote}, throwing {@link dev.rivulet.core.error.RemoteAccessException} with the one
     * refusal text instead of returning null.
     */
    public Grant resolveRemote(long key, long address, long length, Access needed, AccessScope requester) {
        return MEMORY.resolveRemote(domain, key, address, length, needed, requester);
    }

    /** Releases the pin a resolved remote access took. */
    public void release(Grant resolved) {
        MEMORY.unpin(resolved);
    }

    /**
     * A grant over memory the wire itself hands the peer for one transfer (a rendezvous read of a large send),
     * answering requests through {@code scope} only. Close it when the transfer is done.
     */
    public Grant grantForTransfer(RegisteredSlice window, Set<Access> rights, AccessScope scope) {
        return MEMORY.grantForTransfer(domain, window, rights, scope);
    }

    /** Ends every grant made for {@code scope}: its connection is gone. */
    public void revokeScope(AccessScope scope) {
        MEMORY.revokeScope(domain, scope);
    }

    /**
     * The provider's local descriptor of {@code region} (libfabric's {@code fi_mr_desc}), or
     * {@link MemorySegment#NULL} where the provider needs none.
     *
     * @throws InvalidMemoryException when the region belongs to another domain
     */
    public MemorySegment descriptor(MemoryRegion region) {
        if (region.domain() != domain) {
            throw new InvalidMemoryException("region " + region + " belongs to domain " + region.domain().name()
                    + ", not " + domain.name());
        }
        return MEMORY.descriptor(region);
    }
}
