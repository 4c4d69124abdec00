package dev.rivulet.rio.shm;

import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.NativeRegistration;
import dev.rivulet.core.memory.Registrar;
import dev.rivulet.core.sys.Mappings;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The transport's {@link Registrar}. Keys are checked in software, as on every transport whose target serves
 * requests itself: the key is the domain's random proposal, a handle names offsets in its window (never where this
 * process's memory lies), and a request is let through only by {@code MemoryDomain.tryResolveRemote}. On top of that it places {@code allocateRegion} memory in
 * {@link SharedAllocation}s, marks grants of page-aligned windows of them as mappable (one provider byte: a hint to
 * the peer, which still asks and is still checked), and remembers which connections' peers mapped a window of which
 * grant, so that revoking the grant tells each of those peers to unmap.
 */
final class SharedRegions implements Registrar {

    /** The provider bytes of a grant whose window a peer may ask to map. */
    static final byte[] MAPPABLE = {1};

    private final boolean mapWindows;
    private final long page = Mappings.pageSize();
    private final ConcurrentSkipListMap<Long, SharedAllocation> allocations = new ConcurrentSkipListMap<>();
    private final Map<Long, Set<ShmWire>> mappedBy = new ConcurrentHashMap<>();

    SharedRegions(boolean mapWindows) {
        this.mapWindows = mapWindows;
    }

    @Override
    public NativeRegistration register(MemorySegment segment, Set<Access> access, long proposedKey) {
        boolean remote = access.contains(Access.REMOTE_READ) || access.contains(Access.REMOTE_WRITE)
                || access.contains(Access.REMOTE_ATOMIC);
        if (!remote) {
            return NativeRegistration.checkedInSoftware(segment, proposedKey, null, null);
        }
        byte[] hint = mappable(segment.address(), segment.byteSize(), access) != null ? MAPPABLE : null;
        return NativeRegistration.checkedInSoftware(segment, proposedKey, hint, () -> revoked(proposedKey));
    }

    @Override
    public Allocation allocate(long bytes) {
        SharedAllocation a = SharedAllocation.create(bytes);
        allocations.put(a.segment.address(), a);
        return new Allocation(a.segment.asSlice(0, bytes), () -> {
            allocations.remove(a.segment.address(), a);
            a.free();
        });
    }

    /**
     * The allocation a window of {@code rights} may be mapped from, or null: it must lie in one, start and end on a
     * page (a mapping covers whole pages, and must not reach a byte beside the window), and be readable (a mapping
     * cannot be write-only).
     */
    SharedAllocation mappable(long address, long length, Set<Access> rights) {
        if (!mapWindows || !rights.contains(Access.REMOTE_READ) || length <= 0 || address % page != 0
                || length % page != 0) {
            return null;
        }
        Map.Entry<Long, SharedAllocation> e = allocations.floorEntry(address);
        return e != null && e.getValue().contains(address, length) ? e.getValue() : null;
    }

    void exported(long key, ShmWire wire) {
        mappedBy.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(wire);
    }

    void unexported(long key, ShmWire wire) {
        mappedBy.computeIfPresent(key, (k, s) -> {
            s.remove(wire);
            return s.isEmpty() ? null : s;
        });
    }

    /** A grant's registration was released (revoked): every peer that mapped one of its windows must unmap it. */
    private void revoked(long key) {
        Set<ShmWire> wires = mappedBy.remove(key);
        if (wires != null) {
            for (ShmWire w : wires) {
                w.grantRevoked(key);
            }
        }
    }

    /** Frees what is left when the transport closes (regions are closed before this). */
    void close() {
        for (SharedAllocation a : allocations.values()) {
            a.free();
        }
        allocations.clear();
    }
}
