package dev.rivulet.rdma.fabric;

import dev.rivulet.core.engine.Wire;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.loop.ProgressLoop;
import dev.rivulet.rdma.wire.WriteTimeout;

import java.lang.foreign.MemorySegment;

import static dev.rivulet.rdma.fabric.sys.FiConstants.FI_EAGAIN;

/**
 * What every part of a {@link FabricWire} posts through: its RDM endpoint, the peer's {@code fi_addr_t}, the context
 * slots every posted operation carries, and when each of those operations must have completed
 * ({@link WriteTimeout}). Progress thread only.
 */
final class FabricLink {

    final FabricDomain fabric;
    final MemorySegment ep;
    final long peer;
    final ContextSlots slots;
    private final ProgressLoop loop;
    private final WriteTimeout timeout;
    /** When each context slot's operation must have completed, on the loop's coarse clock. */
    private final long[] dueBy;

    FabricLink(FabricDomain fabric, MemorySegment ep, long peer, ContextSlots slots, ProgressLoop loop,
               WriteTimeout timeout) {
        this.fabric = fabric;
        this.ep = ep;
        this.peer = peer;
        this.slots = slots;
        this.loop = loop;
        this.timeout = timeout;
        this.dueBy = new long[slots.capacity()];
    }

    /**
     * A free slot of {@code kind} for {@code owner}, due as an operation moving {@code bytes} posted now; -1 when
     * every slot is in use.
     */
    int acquire(byte kind, Object owner, long bytes) {
        int slot = slots.acquire(kind, owner);
        if (slot >= 0) {
            dueBy[slot] = timeout.dueBy(loop.coarseNanos(), bytes);
        }
        return slot;
    }

    /**
     * What a post in {@code slot} returned: {@code POSTED}, or the slot freed again and {@code NO_RESOURCE} for
     * {@code -FI_EAGAIN}; any other failure throws.
     */
    int posted(int slot, long rc, String call) {
        if (rc == 0) {
            return Wire.POSTED;
        }
        slots.release(slot);
        if (rc == -FI_EAGAIN) {
            return Wire.NO_RESOURCE;
        }
        throw error(call, rc);
    }

    /**
     * Whether an operation handed to the provider (not a receive, which waits for the peer by design) is past its
     * time. Looks a few times per write timeout, not on every poll.
     */
    boolean stalled() {
        long now = loop.coarseNanos();
        if (!timeout.scanDue(now)) {
            return false;
        }
        for (int slot = 0; slot < slots.capacity(); slot++) {
            byte kind = slots.kind(slot);
            if (kind != ContextSlots.FREE && kind != ContextSlots.RECEIVE && now - dueBy[slot] > 0) {
                return true;
            }
        }
        return false;
    }

    /** The exception that breaks the endpoint when {@link #stalled()}. */
    TransportException stallError(String remoteAddress) {
        return timeout.stalled(remoteAddress, fabric.provider);
    }

    long now() {
        return loop.coarseNanos();
    }

    String provider() {
        return fabric.provider;
    }

    /** A failed libfabric call ({@code rc} negative) as the exception it means. */
    TransportException error(String call, long rc) {
        return FabricErrors.ofCall(fabric.provider, call, rc);
    }
}
