package dev.rivulet.core.memory;

import dev.rivulet.core.error.InvalidMemoryException;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A segment registered with a memory domain: a local descriptor for posting, and the ceiling of the remote rights
 * its {@link Grant}s may give peers.
 *
 * <p>Lifetime is guarded by pins: every operation that lets the provider touch this memory pins the region first
 * ({@link #tryPin()}) and unpins when its completion arrives. {@link #close()} stops new pins at once but defers the
 * provider deregistration until the last pin is gone, so a region is never deregistered under an operation in
 * flight (no use-after-free) and no new operation can start on it after close.
 */
public final class MemoryRegion implements AutoCloseable {

    private static final long CLOSING = 1L << 62;

    private final MemoryDomain domain;
    private final MemorySegment segment;
    private final Set<Access> access;
    private final NativeRegistration registration;
    private final AtomicLong state = new AtomicLong();
    private final Sinks.Empty<Void> closed = Sinks.empty();
    /** Who waits for the pins to drop to none ({@link #whenUnpinned()}); null while nobody does. */
    private volatile @Nullable List<Sinks.Empty<Void>> unpinWaiters;

    MemoryRegion(MemoryDomain domain, MemorySegment segment, Set<Access> access, NativeRegistration registration) {
        this.domain = domain;
        this.segment = segment;
        this.access = Set.copyOf(access);
        this.registration = registration;
    }

    public MemoryDomain domain() {
        return domain;
    }

    /** The registered bytes. */
    public MemorySegment segment() {
        return segment;
    }

    public long address() {
        return segment.address();
    }

    public long length() {
        return segment.byteSize();
    }

    public Set<Access> access() {
        return access;
    }

    /** The provider's local descriptor ({@code fi_mr_desc}, lkey holder), or {@link MemorySegment#NULL}. */
    MemorySegment descriptor() {
        return registration.descriptor();
    }

    NativeRegistration registration() {
        return registration;
    }

    /**
     * Grants {@code rights} on the window {@code [offset, offset + length)} to <em>every</em> connection of this
     * transport that presents the returned handle's key: the owner's explicit choice to share. For a handle only one
     * peer can use, grant through that peer's endpoint ({@code Endpoint.grant}). Nothing outside the window is
     * exposed; revoke with {@link Grant#close()} or by closing the region.
     *
     * @throws InvalidMemoryException when the region was not registered for those rights, or is closed
     */
    public Grant grantToAnyPeer(long offset, long length, Access... rights) {
        return domain.grant(slice(offset, length), Access.setOf(rights), null);
    }

    /** A local slice {@code [offset, offset + length)} for put/get. */
    public RegisteredSlice slice(long offset, long length) {
        return new RegisteredSlice(this, offset, length);
    }

    /** The whole region as a local slice. */
    public RegisteredSlice slice() {
        return new RegisteredSlice(this, 0, length());
    }

    /** Whether {@code [address, address + length)} (native addresses) lies inside the region. */
    public boolean contains(long address, long length) {
        long base = segment.address();
        return length >= 0 && address >= base && address - base <= segment.byteSize() - length;
    }

    /**
     * Pins the region for one operation. Returns false once the region is closing; the caller must then fail the
     * operation instead of posting it.
     */
    boolean tryPin() {
        for (;;) {
            long s = state.get();
            if ((s & CLOSING) != 0) {
                return false;
            }
            if (state.compareAndSet(s, s + 1)) {
                return true;
            }
        }
    }

    /** Releases a pin taken by {@link #tryPin()}; the last unpin of a closing region deregisters it. */
    void unpin() {
        long s = state.decrementAndGet();
        if (s == CLOSING) {
            deregister();
        } else if ((s & ~CLOSING) < 0) {
            throw new IllegalStateException("unbalanced unpin");
        }
        if ((s & ~CLOSING) == 0 && unpinWaiters != null) {
            signalUnpinned();
        }
    }

    /**
     * Completes once no operation pins this region: at once when none does, otherwise when the last one's completion
     * has arrived. An operation that was cancelled or timed out may still be posted, and the provider may still read
     * or write its memory until its completion; this says when the memory is the caller's again, e.g. before reusing
     * the destination of a {@code get} abandoned by {@code timeout()}. It does not wait for operations issued later.
     * An operation pins the region when its polling thread takes it up; one cancelled before that is dropped there,
     * pinning the region for a moment without ever letting the provider touch it.
     */
    public Mono<Void> whenUnpinned() {
        return Mono.defer(() -> {
            if (pins() == 0) {
                return Mono.empty();
            }
            Sinks.Empty<Void> waiter = Sinks.empty();
            synchronized (this) {
                List<Sinks.Empty<Void>> w = unpinWaiters;
                if (w == null) {
                    w = new ArrayList<>();
                    unpinWaiters = w;
                }
                w.add(waiter);
            }
            if (pins() == 0) {
                signalUnpinned(); // the last pin went while this waiter was added
            }
            return waiter.asMono();
        });
    }

    private void signalUnpinned() {
        List<Sinks.Empty<Void>> w;
        synchronized (this) {
            w = unpinWaiters;
            unpinWaiters = null;
        }
        if (w != null) {
            w.forEach(Sinks.Empty::tryEmitEmpty);
        }
    }

    /** Operations currently pinning this region. */
    public long pins() {
        return state.get() & ~CLOSING;
    }

    public boolean isOpen() {
        return (state.get() & CLOSING) == 0;
    }

    /** Completes once the provider registration has really been released. */
    public Mono<Void> onClose() {
        return closed.asMono();
    }

    /**
     * Revokes every grant on the region at once, refuses new operations, and deregisters once the operations in
     * flight have completed. Idempotent.
     */
    @Override
    public void close() {
        domain.revokeRegion(this);
        for (;;) {
            long s = state.get();
            if ((s & CLOSING) != 0) {
                return;
            }
            if (state.compareAndSet(s, s | CLOSING)) {
                if (s == 0) {
                    deregister();
                }
                return;
            }
        }
    }

    private void deregister() {
        try {
            registration.release().run();
        } finally {
            domain.forget(this);
            closed.tryEmitEmpty();
        }
    }

    @Override
    public String toString() {
        return "MemoryRegion[address=0x" + Long.toHexString(address()) + ", length=" + length() + ", pins=" + pins()
                + (isOpen() ? "" : ", closing") + "]";
    }
}
