package dev.rivulet.core.memory;

import dev.rivulet.core.error.InvalidMemoryException;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.lang.foreign.MemorySegment;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A segment registered with a memory domain: a local descriptor for posting and a key peers name it by.
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

    /** The key peers present to reach this region. */
    public long key() {
        return registration.key();
    }

    /** The provider's local descriptor ({@code fi_mr_desc}, lkey holder), or {@link MemorySegment#NULL}. */
    public MemorySegment descriptor() {
        return registration.descriptor();
    }

    /** Address a peer names for byte {@code offset} of this region. */
    public long remoteAddress(long offset) {
        return registration.remoteBase() + offset;
    }

    long remoteBase() {
        return registration.remoteBase();
    }

    NativeRegistration registration() {
        return registration;
    }

    /** The whole region as a handle for a peer. Requires some remote access right. */
    public RemoteMemory remote() {
        return remote(0, length());
    }

    /** The window {@code [offset, offset + length)} as a handle for a peer; nothing outside it is exposed. */
    public RemoteMemory remote(long offset, long length) {
        if (!(access.contains(Access.REMOTE_READ) || access.contains(Access.REMOTE_WRITE)
                || access.contains(Access.REMOTE_ATOMIC))) {
            throw new InvalidMemoryException("region was registered for local access only: " + access);
        }
        if (!isOpen()) {
            throw new InvalidMemoryException("region is closed");
        }
        slice(offset, length); // bounds check
        return new RemoteMemory(remoteAddress(offset), length, key(), registration.providerBytes());
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
    public boolean tryPin() {
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
    public void unpin() {
        long s = state.decrementAndGet();
        if (s == CLOSING) {
            deregister();
        } else if ((s & ~CLOSING) < 0) {
            throw new IllegalStateException("unbalanced unpin");
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
     * Refuses new operations now and deregisters once the operations in flight have completed. Idempotent.
     */
    @Override
    public void close() {
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
        return "MemoryRegion[address=0x" + Long.toHexString(address()) + ", length=" + length() + ", key=0x"
                + Long.toHexString(key()) + ", pins=" + pins() + (isOpen() ? "" : ", closing") + "]";
    }
}
