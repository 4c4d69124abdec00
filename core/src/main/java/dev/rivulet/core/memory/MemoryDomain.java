package dev.rivulet.core.memory;

import dev.rivulet.core.error.InvalidMemoryException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.error.ResourceClosedException;

import java.lang.foreign.MemorySegment;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Registers memory with one transport's provider and keeps track of it (UCT's memory domain).
 *
 * <p>Three ways in: {@link #register} for memory the caller owns and manages, {@link #registerCached} for memory
 * registered on first use and reused after (the registration cache), and {@link #allocate} for pooled message
 * buffers. Only what was registered is ever reachable by a peer, and {@link #resolveRemote} is the single gate every
 * incoming remote access passes: key, bounds and access rights, then a pin for the duration of the access.
 */
public final class MemoryDomain implements AutoCloseable {

    private final String name;
    private final Registrar registrar;
    private final Map<Long, MemoryRegion> byKey = new ConcurrentHashMap<>();
    private final NavigableMap<Long, MemoryRegion> byAddress = new TreeMap<>();
    private final NavigableMap<Long, MemoryRegion> cache = new TreeMap<>();
    private final SplittableRandom keys = new SplittableRandom(new SecureRandom().nextLong());
    private final BufferPool buffers;
    private volatile boolean closed;
    private long cacheHits;
    private long cacheMisses;

    public MemoryDomain(String name, Registrar registrar) {
        this.name = name;
        this.registrar = registrar;
        this.buffers = new BufferPool(this);
    }

    public String name() {
        return name;
    }

    /** Registers {@code segment} for every kind of access. */
    public MemoryRegion register(MemorySegment segment) {
        return register(segment, Access.ALL);
    }

    /** Registers a native segment. Heap segments are refused: a provider cannot pin memory the GC moves. */
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
            long proposed;
            do {
                proposed = keys.nextLong();
            } while (proposed == 0 || byKey.containsKey(proposed));
            NativeRegistration reg = registrar.register(segment, access, proposed);
            MemoryRegion region = new MemoryRegion(this, segment, access, reg);
            if (byKey.putIfAbsent(reg.key(), region) != null) {
                reg.release().run();
                throw new InvalidMemoryException("provider returned a key already in use: 0x"
                        + Long.toHexString(reg.key()));
            }
            byAddress.putIfAbsent(segment.address(), region); // an inner window must not hide its enclosing region
            return region;
        }
    }

    /**
     * A slice of a cached registration covering {@code segment}, registering it on a miss. Cached regions belong
     * to the domain (closed with it); callers must not close them.
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
            MemoryRegion r = register(segment, Access.ALL);
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

    /** A pooled, registered message buffer of {@code size} bytes. */
    public Buffer allocate(int size) {
        return buffers.allocate(size);
    }

    public BufferPool buffers() {
        return buffers;
    }

    /**
     * Target-side check of an incoming remote access to {@code [address, address + length)} under {@code key}:
     * returns the pinned region (the caller must {@link MemoryRegion#unpin()} it when done) or throws
     * {@link RemoteAccessException}. Nothing outside a registered, open region with the right rights passes.
     */
    public MemoryRegion resolveRemote(long key, long address, long length, Access needed) {
        MemoryRegion r = byKey.get(key);
        if (r == null) {
            throw new RemoteAccessException("unknown remote key 0x" + Long.toHexString(key));
        }
        if (!r.access().contains(needed)) {
            throw new RemoteAccessException("region with key 0x" + Long.toHexString(key) + " does not allow "
                    + needed);
        }
        long base = r.remoteBase();
        if (length < 0 || address < base || address - base > r.length() - length) {
            throw new RemoteAccessException("remote access [0x" + Long.toHexString(address) + ", +" + length
                    + ") outside the region registered under key 0x" + Long.toHexString(key));
        }
        if (!r.tryPin()) {
            throw new RemoteAccessException("region with key 0x" + Long.toHexString(key) + " was deregistered");
        }
        return r;
    }

    /** Offset inside {@code region} of the remote address {@code address}. */
    public static long offsetOf(MemoryRegion region, long address) {
        return address - region.remoteBase();
    }

    void forget(MemoryRegion r) {
        byKey.remove(r.key(), r);
        synchronized (this) {
            byAddress.remove(r.address(), r);
            cache.remove(r.address(), r);
        }
    }

    public boolean isClosed() {
        return closed;
    }

    /** Regions registered and not yet released (pool slabs included). */
    public int regionCount() {
        return byKey.size();
    }

    /** Closes the buffer pool and every region (each deregisters once its operations in flight are done). */
    @Override
    public void close() {
        ArrayList<MemoryRegion> all;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            all = new ArrayList<>(byKey.values());
        }
        buffers.close();
        for (MemoryRegion r : all) {
            r.close();
        }
    }
}
