package dev.rivulet.gpu;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * One allocation of device memory ({@link DeviceMemory#allocate(long)}).
 *
 * <p>Lifetime follows {@link dev.rivulet.core.memory.MemoryRegion}'s: every transfer that touches the memory pins
 * the buffer for as long as copies or network operations may still touch it, cancelled transfers included, and
 * {@link #close()} refuses new transfers at once but frees the memory only when the last pin is gone. Whatever was
 * built on the memory (a provider registration for the direct path) is closed before it is freed
 * ({@link #beforeFree}).
 */
public abstract class DeviceBuffer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DeviceBuffer.class);
    private static final long CLOSING = 1L << 62;

    private final DeviceMemory memory;
    private final long address;
    private final long length;
    private final AtomicLong state = new AtomicLong();
    private final List<Supplier<Mono<Void>>> dependents = new ArrayList<>(1);
    private final Sinks.Empty<Void> freed = Sinks.empty();

    protected DeviceBuffer(DeviceMemory memory, long address, long length) {
        this.memory = memory;
        this.address = address;
        this.length = length;
    }

    public final DeviceMemory memory() {
        return memory;
    }

    /** The device address of the first byte (a CUDA device pointer). */
    public final long address() {
        return address;
    }

    public final long length() {
        return length;
    }

    /** The whole buffer as a slice. */
    public final DeviceSlice slice() {
        return new DeviceSlice(this, 0, length);
    }

    /** The slice {@code [offset, offset + length)}. */
    public final DeviceSlice slice(long offset, long length) {
        return new DeviceSlice(this, offset, length);
    }

    /** Transfers currently using the memory. */
    public final long pins() {
        return state.get() & ~CLOSING;
    }

    public final boolean isOpen() {
        return (state.get() & CLOSING) == 0;
    }

    /** Pins the buffer for one transfer; false once it is closing (the transfer must then fail). */
    final boolean tryPin() {
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

    /** Ends a pin; the last one of a closing buffer frees it. */
    final void unpin() {
        long s = state.decrementAndGet();
        if (s == CLOSING) {
            release();
        } else if ((s & ~CLOSING) < 0) {
            throw new IllegalStateException("unbalanced unpin of " + this);
        }
    }

    /**
     * Registers something built on this memory that must end before it is freed: {@code dependent} closes it and
     * returns a {@code Mono} completing once it no longer touches the memory (a provider registration's close).
     */
    public final void beforeFree(Supplier<Mono<Void>> dependent) {
        synchronized (dependents) {
            dependents.add(dependent);
        }
    }

    /**
     * Refuses new transfers now and frees the memory once the transfers using it have ended (at once when none
     * does). Idempotent.
     */
    @Override
    public final void close() {
        for (;;) {
            long s = state.get();
            if ((s & CLOSING) != 0) {
                return;
            }
            if (state.compareAndSet(s, s | CLOSING)) {
                if (s == 0) {
                    release();
                }
                return;
            }
        }
    }

    /** Completes once the memory has been freed. */
    public final Mono<Void> onFree() {
        return freed.asMono();
    }

    /** Gives the memory back to the device (may block: never called on a polling thread). */
    protected abstract void free();

    private void release() {
        List<Supplier<Mono<Void>>> deps;
        synchronized (dependents) {
            deps = List.copyOf(dependents);
            dependents.clear();
        }
        if (deps.isEmpty() && !Schedulers.isInNonBlockingThread()) {
            freeNow();
            return;
        }
        // Freeing may synchronise the device (cudaFree does): never on a polling thread.
        Flux.fromIterable(deps)
                .flatMap(d -> d.get().onErrorResume(e -> {
                    log.warn("closing what depends on {} failed", this, e);
                    return Mono.empty();
                }))
                .then()
                .publishOn(Schedulers.boundedElastic())
                .subscribe(null, e -> freeNow(), this::freeNow);
    }

    private void freeNow() {
        try {
            free();
        } catch (RuntimeException e) {
            log.warn("freeing {} failed", this, e);
        } finally {
            freed.tryEmitEmpty();
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + memory.kind() + ":" + memory.device() + ", address=0x"
                + Long.toHexString(address) + ", length=" + length + ", pins=" + pins()
                + (isOpen() ? "" : ", closing") + "]";
    }
}
