package dev.rivulet.core.memory;

import dev.rivulet.core.error.ResourceClosedException;
import org.jspecify.annotations.Nullable;

import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * Permission for a peer to reach one window of a registered region with some remote rights: what the owner hands
 * out instead of the region itself (a memory window in verbs terms). Each grant has its own random key, so the
 * target checks the window and rights that were granted, not only the region they lie in, and a grant can be
 * revoked on its own.
 *
 * <p>Made with {@code Endpoint.grant} (only requests arriving on that connection are answered; revoked when the
 * endpoint closes) or {@link MemoryRegion#grantToAnyPeer} (every connection of the transport that presents the key).
 * {@link #close()} revokes: every later request under the key is refused, whatever the requester had cached.
 * Closing the region revokes all its grants at once.
 *
 * <p>On transports whose provider checks keys itself (libfabric), a grant is a registration of exactly the window
 * with exactly the granted rights; there the connection scope cannot be checked by the target, and a scoped grant is
 * as safe as its key is secret ({@code Capabilities#grantScopeChecked}).
 */
public final class Grant implements AutoCloseable {

    private final MemoryDomain domain;
    private final MemoryRegion region;
    private final long offset;
    private final long length;
    private final Set<Access> rights;
    private final @Nullable AccessScope scope;
    private final NativeRegistration registration;
    private final MemorySegment window;
    private final RemoteMemory remote;
    private volatile boolean revoked;

    Grant(MemoryDomain domain, MemoryRegion region, long offset, long length, Set<Access> rights,
          @Nullable AccessScope scope, NativeRegistration registration) {
        this.domain = domain;
        this.region = region;
        this.offset = offset;
        this.length = length;
        this.rights = Set.copyOf(rights);
        this.scope = scope;
        this.registration = registration;
        this.window = region.segment().asSlice(offset, length);
        this.remote = new RemoteMemory(registration.remoteBase(), length, registration.key(),
                registration.providerBytes());
    }

    /** The handle to send to the peer (any out-of-band channel, or a Rivulet message: {@link RemoteMemory#toBytes}). */
    public RemoteMemory remote() {
        if (revoked) {
            throw new ResourceClosedException("grant was revoked");
        }
        return remote;
    }

    public MemoryRegion region() {
        return region;
    }

    /** Offset of the window inside {@link #region()}. */
    public long offset() {
        return offset;
    }

    public long length() {
        return length;
    }

    public Set<Access> rights() {
        return rights;
    }

    /** Whether only requests on one connection are answered. */
    public boolean isScoped() {
        return scope != null;
    }

    public boolean isOpen() {
        return !revoked;
    }

    /** Revokes the grant: later requests under its key are refused. Idempotent. */
    @Override
    public void close() {
        domain.revoke(this);
    }

    // ---- target side: what a transport executing a request needs ----

    /** The granted bytes. */
    public MemorySegment window() {
        return window;
    }

    /**
     * The address a peer names for the window's first byte (what {@link #remote()} carries): a virtual address where
     * the provider's contract says so, a number below {@value NativeRegistration#SOFTWARE_ADDRESS_ALIGNMENT} where
     * Rivulet checks accesses itself. Still answered once the grant is revoked, for a target that must name it.
     */
    public long remoteBase() {
        return registration.remoteBase();
    }

    /** Offset inside {@link #window()} of the address a request names. */
    public long offsetOf(long remoteAddress) {
        return remoteAddress - registration.remoteBase();
    }

    /** Ends the access that {@link MemoryDomain#resolveRemote} started. */
    void unpin() {
        region.unpin();
    }

    long key() {
        return registration.key();
    }

    @Nullable AccessScope scope() {
        return scope;
    }

    NativeRegistration registration() {
        return registration;
    }

    /** Marks revoked; true the first time. */
    boolean markRevoked() {
        if (revoked) {
            return false;
        }
        revoked = true;
        return true;
    }

    /** Whether {@code [address, address + n)} lies inside the window. */
    boolean covers(long address, long n) {
        // Bases are user-space addresses or below 64 and windows are far below 2^62, so a wrapped difference lands
        // far beyond the window and fails the second test.
        long rel = address - registration.remoteBase();
        return n >= 0 && rel >= 0 && rel <= length - n;
    }

    @Override
    public String toString() {
        return "Grant[" + region + " +" + offset + " len=" + length + " " + rights + (scope != null ? ", scoped" : "")
                + (revoked ? ", revoked" : "") + "]";
    }
}
