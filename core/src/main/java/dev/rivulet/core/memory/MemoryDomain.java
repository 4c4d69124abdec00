package dev.rivulet.core.memory;

import dev.rivulet.core.error.InvalidMemoryException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.error.ResourceClosedException;
import org.jspecify.annotations.Nullable;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Registers memory with one transport's provider and keeps track of it (UCT's memory domain).
 *
 * <p>Three ways in: {@link #register} for memory the caller owns and manages, {@link #registerCached} for memory
 * registered on first use and reused after (the registration cache), and {@link #allocate} for pooled message
 * buffers. Registering exposes nothing to peers: a region is reachable remotely only through {@link Grant}s, each a
 * window with its own random key and exactly the rights granted, and {@link #resolveRemote} is the single gate every
 * incoming remote access passes: key, connection, rights and window, then a pin for the duration of the access.
 */
public final class MemoryDomain {

    /** The one answer a refused remote access gets, whatever the reason: a refusal must not tell live keys apart. */
    public static final String REFUSED = "remote access refused";

    static {
        MemoryAccessImpl.install();
    }

    private final String name;
    private final Registrar registrar;
    private final Map<Long, Grant> byKey = new ConcurrentHashMap<>();
    private final Map<AccessScope, List<Grant>> byScope = new IdentityHashMap<>();
    private final Map<MemoryRegion, List<Grant>> byRegion = new IdentityHashMap<>();
    private final Set<MemoryRegion> regions = Collections.newSetFromMap(new IdentityHashMap<>());
    private final NavigableMap<Long, MemoryRegion> byAddress = new TreeMap<>();
    private final NavigableMap<Long, MemoryRegion> cache = new TreeMap<>();
    private final KeySource keys = new KeySource();
    private final BufferPool buffers;
    private volatile boolean closed;
    private long cacheHits;
    private long cacheMisses;

    MemoryDomain(String name, Registrar registrar) {
        this.name = name;
        this.registrar = registrar;
        this.buffers = new BufferPool(this);
    }

    public String name() {
        return name;
    }

    /**
     * Registers {@code segment} for local use only: the source of sends and puts, the destination of gets. It can
     * never be granted to a peer; for that, name the remote rights grants may give with
     * {@link #register(MemorySegment, Access...)}.
     */
    public MemoryRegion register(MemorySegment segment) {
        return register(segment, Access.LOCAL);
    }

    /**
     * Registers {@code segment} for local use and allows {@link Grant}s of the remote rights named in
     * {@code grantable} on it later ({@link Access#REMOTE_READ}, {@link Access#REMOTE_WRITE},
     * {@link Access#REMOTE_ATOMIC}). Nothing is exposed until a grant is made.
     */
    public MemoryRegion register(MemorySegment segment, Access... grantable) {
        if (grantable == null) {
            throw new InvalidRequestException("rights must not be null");
        }
        java.util.EnumSet<Access> rights = java.util.EnumSet.copyOf(Access.LOCAL);
        for (Access a : grantable) {
            if (a == null) {
                throw new InvalidRequestException("rights must not be null");
            }
            rights.add(a);
        }
        return register(segment, rights);
    }

    /**
     * Registers a native segment; {@code access} bounds what grants on it may allow (a region registered with
     * {@link Access#LOCAL} can never be reached by a peer). Heap segments are refused: a provider cannot pin memory
     * the GC moves.
     */
    public MemoryRegion register(MemorySegment segment, Set<Access> access) {
        if (segment == null || access == null) {
            throw new InvalidRequestException("segment and access must not be null");
        }
        if (!segment.isNative()) {
            throw new InvalidMemoryException("only native (off-heap) segments can be registered");
        }
        if (!segment.scope().isAlive()) {
            throw new InvalidMemoryException("segment's arena is closed");
        }
        synchronized (this) {
            if (closed) {
                throw new ResourceClosedException("memory domain " + name + " is closed");
            }
            // The provider registration itself carries local rights only: remote access is granted per window.
            NativeRegistration reg = registrar.register(segment, Access.LOCAL, keys.next());
            MemoryRegion region = new MemoryRegion(this, segment, access, reg);
            regions.add(region);
            byAddress.putIfAbsent(segment.address(), region); // an inner window must not hide its enclosing region
            return region;
        }
    }

    /**
     * Allocates {@code bytes} of native memory where this transport's peers reach it best and registers it as
     * {@link #register(MemorySegment, Access...)} does; the memory is freed once the region is closed and the
     * operations on it are done. On {@code shm://} it is a shared mapping, and a peer granted a page-aligned window of
     * it maps that window and reads, writes and runs atomics there itself; elsewhere it is ordinary native memory.
     */
    public MemoryRegion allocateRegion(long bytes, Access... grantable) {
        if (bytes <= 0) {
            throw new InvalidRequestException("a region needs a positive size, got " + bytes);
        }
        if (closed) {
            throw new ResourceClosedException("memory domain " + name + " is closed");
        }
        Registrar.Allocation a = registrar.allocate(bytes);
        MemoryRegion region;
        try {
            region = register(a.segment(), grantable);
        } catch (RuntimeException | Error e) {
            a.free().run();
            throw e;
        }
        region.onClose().subscribe(null, null, a.free());
        return region;
    }

    /**
     * A slice of a cached registration covering {@code segment}, registering it (for local use: the source of a put,
     * the destination of a get) on a miss. Cached regions belong to the domain (closed with it); callers must not
     * close them.
     */
    public RegisteredSlice registerCached(MemorySegment segment) {
        if (segment == null) {
            throw new InvalidRequestException("segment must not be null");
        }
        synchronized (this) {
            Map.Entry<Long, MemoryRegion> e = cache.floorEntry(segment.address());
            if (e != null && e.getValue().isOpen() && e.getValue().contains(segment.address(), segment.byteSize())) {
                cacheHits++;
                MemoryRegion r = e.getValue();
                return r.slice(segment.address() - r.address(), segment.byteSize());
            }
            cacheMisses++;
            MemoryRegion r = register(segment, Access.LOCAL);
            cache.put(segment.address(), r);
            return r.slice();
        }
    }

    public synchronized long cacheHits() {
        return cacheHits;
    }

    public synchronized long cacheMisses() {
        return cacheMisses;
    }

    /**
     * The registered slice holding {@code segment}, for callers who hold a plain segment into registered memory.
     *
     * @throws InvalidMemoryException when no open region of this domain covers it
     */
    public RegisteredSlice lookup(MemorySegment segment) {
        if (segment == null) {
            throw new InvalidRequestException("segment must not be null");
        }
        synchronized (this) {
            Map.Entry<Long, MemoryRegion> e = byAddress.floorEntry(segment.address());
            if (e != null && e.getValue().isOpen() && e.getValue().contains(segment.address(), segment.byteSize())) {
                MemoryRegion r = e.getValue();
                return r.slice(segment.address() - r.address(), segment.byteSize());
            }
        }
        throw new InvalidMemoryException("memory at 0x" + Long.toHexString(segment.address()) + " (+"
                + segment.byteSize() + ") is not registered with domain " + name);
    }

    /** A pooled, registered message buffer of {@code size} bytes (local use only: pool memory is never granted). */
    public Buffer allocate(int size) {
        return buffers.allocate(size);
    }

    public BufferPool buffers() {
        return buffers;
    }

    /**
     * Grants {@code rights} on {@code window} to requests arriving through {@code scope}, or to every connection when
     * {@code scope} is null. The rights must be remote ones the region was registered for. Users grant through
     * {@code Endpoint.grant} and {@link MemoryRegion#grantToAnyPeer}; transports call this directly.
     */
    Grant grant(RegisteredSlice window, Set<Access> rights, @Nullable AccessScope scope) {
        if (window == null || rights == null) {
            throw new InvalidRequestException("window and rights must not be null");
        }
        if (rights.isEmpty() || !Access.REMOTE.containsAll(rights)) {
            throw new InvalidRequestException("a grant needs one or more of " + Access.REMOTE + ", got " + rights);
        }
        MemoryRegion region = window.region();
        if (region.domain() != this) {
            throw new InvalidMemoryException("window is not registered with memory domain " + name);
        }
        if (!region.access().containsAll(rights)) {
            throw new InvalidMemoryException("region was registered for " + region.access() + ", cannot grant "
                    + rights);
        }
        return newGrant(region, window.offset(), window.length(), rights, scope);
    }

    /**
     * A grant over memory this transport itself hands to a peer for one transfer (a rendezvous message's buffer),
     * whatever the region's own ceiling, scoped to {@code scope}. The caller revokes it when the transfer is done.
     */
    Grant grantForTransfer(RegisteredSlice window, Set<Access> rights, AccessScope scope) {
        if (scope == null) {
            throw new InvalidRequestException("a transfer grant is always scoped to its connection");
        }
        return newGrant(window.region(), window.offset(), window.length(), rights, scope);
    }

    private Grant newGrant(MemoryRegion region, long offset, long length, Set<Access> rights, AccessScope scope) {
        synchronized (this) {
            if (closed) {
                throw new ResourceClosedException("memory domain " + name + " is closed");
            }
            if (!region.isOpen()) {
                throw new InvalidMemoryException("region is closed");
            }
            long proposed;
            do {
                proposed = keys.next();
            } while (byKey.containsKey(proposed));
            NativeRegistration reg = registrar.register(region.segment().asSlice(offset, length), rights, proposed);
            Grant g = new Grant(this, region, offset, length, rights, scope, reg);
            if (byKey.putIfAbsent(reg.key(), g) != null) {
                reg.release().run();
                throw new InvalidMemoryException("provider returned a key already in use");
            }
            byRegion.computeIfAbsent(region, r -> new ArrayList<>(2)).add(g);
            if (scope != null) {
                byScope.computeIfAbsent(scope, s -> new ArrayList<>(2)).add(g);
            }
            return g;
        }
    }

    /**
     * Target-side check of an incoming remote access to {@code [address, address + length)} under {@code key},
     * arriving through {@code requester}: returns the pinned grant (the caller must {@link Grant#unpin()} it when
     * done), or null when refused. Nothing outside a live grant's window, with its rights and for its connection,
     * passes. No allocation, no exception: a peer probing keys costs the target a map lookup.
     */
    @Nullable Grant tryResolveRemote(long key, long address, long length, Access needed, AccessScope requester) {
        Grant g = byKey.get(key);
        if (g == null || !g.isOpen() || (g.scope() != null && g.scope() != requester) || !g.rights().contains(needed)
                || !g.covers(address, length) || !g.region().tryPin()) {
            return null;
        }
        if (!g.isOpen()) { // revoked between the check and the pin
            g.region().unpin();
            return null;
        }
        return g;
    }

    /**
     * As {@link #tryResolveRemote} but throws {@link RemoteAccessException} with the one text {@link #REFUSED}
     * when refused, whatever the reason.
     */
    Grant resolveRemote(long key, long address, long length, Access needed, AccessScope requester) {
        Grant g = tryResolveRemote(key, address, length, needed, requester);
        if (g == null) {
            throw new RemoteAccessException(REFUSED);
        }
        return g;
    }

    /** Revokes one grant (idempotent) and releases its provider registration. */
    void revoke(Grant g) {
        if (!g.markRevoked()) {
            return;
        }
        synchronized (this) {
            byKey.remove(g.key(), g);
            remove(byRegion, g.region(), g);
            if (g.scope() != null) {
                remove(byScope, g.scope(), g);
            }
        }
        g.registration().release().run();
    }

    /** Revokes every grant made for {@code scope}: its connection is gone. */
    void revokeScope(AccessScope scope) {
        List<Grant> gs;
        synchronized (this) {
            gs = byScope.remove(scope);
        }
        if (gs != null) {
            for (Grant g : List.copyOf(gs)) {
                revoke(g);
            }
        }
    }

    /** Grants currently open (for tests and metrics). */
    public int grantCount() {
        return byKey.size();
    }

    void revokeRegion(MemoryRegion r) {
        List<Grant> gs;
        synchronized (this) {
            gs = byRegion.remove(r);
        }
        if (gs != null) {
            for (Grant g : List.copyOf(gs)) {
                revoke(g);
            }
        }
    }

    private static <K> void remove(Map<K, List<Grant>> index, K k, Grant g) {
        List<Grant> l = index.get(k);
        if (l != null) {
            l.remove(g);
            if (l.isEmpty()) {
                index.remove(k);
            }
        }
    }

    void forget(MemoryRegion r) {
        synchronized (this) {
            regions.remove(r);
            byAddress.remove(r.address(), r);
            cache.remove(r.address(), r);
        }
    }

    public boolean isClosed() {
        return closed;
    }

    /** Regions registered and not yet released (pool slabs included). */
    public synchronized int regionCount() {
        return regions.size();
    }

    /** Closes the buffer pool and every region (each deregisters once its operations in flight are done). */
    void close() {
        List<MemoryRegion> all;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            all = new ArrayList<>(regions);
        }
        buffers.close();
        for (MemoryRegion r : all) {
            r.close();
        }
    }
}
