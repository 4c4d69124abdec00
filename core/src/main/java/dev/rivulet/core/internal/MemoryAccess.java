package dev.rivulet.core.internal;

import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.AccessScope;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RegisteredSlice;
import dev.rivulet.core.memory.Registrar;
import org.jspecify.annotations.Nullable;

import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * What the engine and the backends may do with memory objects that users must not: the package-private side of
 * {@code dev.rivulet.core.memory}, reached through {@link Internals#memory()}. This package is exported only to
 * Rivulet's own modules.
 */
public interface MemoryAccess {

    /** A domain registering through {@code registrar}: one per transport. */
    MemoryDomain newDomain(String name, Registrar registrar);

    /** Closes the buffer pool and every region of {@code domain} (its transport is going). */
    void close(MemoryDomain domain);

    /** A grant of {@code rights} on {@code window} for requests arriving through {@code scope} (null: any). */
    Grant grant(MemoryDomain domain, RegisteredSlice window, Set<Access> rights, @Nullable AccessScope scope);

    /** A grant over memory the transport itself hands a peer for one transfer (rendezvous), always scoped. */
    Grant grantForTransfer(MemoryDomain domain, RegisteredSlice window, Set<Access> rights, AccessScope scope);

    /**
     * The target's check of an incoming remote access: the pinned grant ({@link #unpin(Grant)} when done), or null
     * when refused.
     */
    @Nullable Grant tryResolveRemote(MemoryDomain domain, long key, long address, long length, Access needed,
                           AccessScope requester);

    /** As {@link #tryResolveRemote}, throwing the one refusal text instead of returning null. */
    Grant resolveRemote(MemoryDomain domain, long key, long address, long length, Access needed,
                        AccessScope requester);

    /** Revokes every grant made for {@code scope}: its connection is gone. */
    void revokeScope(MemoryDomain domain, AccessScope scope);

    /** Pins a region for one operation; false once it is closing. */
    boolean tryPin(MemoryRegion region);

    /** Releases a pin; the last one of a closing region deregisters it. */
    void unpin(MemoryRegion region);

    /** Releases the pin {@link #tryResolveRemote} took. */
    void unpin(Grant grant);

    /** The provider's local descriptor of a region ({@code fi_mr_desc}), or {@link MemorySegment#NULL}. */
    MemorySegment descriptor(MemoryRegion region);

    /**
     * Makes {@code body} the bytes that follow {@code head}'s when {@code head} is sent as a message: a wire that
     * gathers writes both, the engine joins them for one that does not. {@code head} takes over the caller's
     * reference to {@code body} and releases it with its own last release.
     */
    void attachBody(Buffer head, Buffer body);

    /** The buffer whose bytes follow {@code head}'s in its message ({@link #attachBody}), or null. */
    @Nullable Buffer body(Buffer head);

    /** A new lender of views for one receiver ({@link BufferLending}). */
    BufferLending newLending();
}
