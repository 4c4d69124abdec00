package dev.rivulet.core.remote;

import dev.rivulet.core.engine.AtomicOp;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.internal.MemoryAccess;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.AccessScope;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.MemoryDomain;
import org.jspecify.annotations.Nullable;

import java.lang.foreign.MemorySegment;

/**
 * One connection's software target: what a transport whose own code executes incoming puts, gets and atomics does
 * with each of them, in one place.
 *
 * <p>Every access passes {@code MemoryDomain.tryResolveRemote} for this target's domain and connection (a live grant
 * under the key, made for this connection or for any, with the right needed, covering the bytes, pinned for the
 * access); an atomic also needs a width of 4 or 8 bytes and an address aligned to it. Whatever fails, the answer is
 * the same {@link #refused()}, so that a peer probing keys and addresses cannot tell a live key from a dead one or a
 * window's edge from a missing right. Nothing outside a granted window is read or written: the copies go through
 * the grant's own window segment, which the FFM bounds check confines to it again.
 *
 * <p>A one-shot access ({@link #put}, {@link #get}, {@link #atomic}) pins, executes and unpins in one call. An
 * access that spans time (a put whose data arrives over several receives, a get answered when there is room to
 * write it) holds the pinned grant from {@link #tryResolve} and moves bytes with {@link #copyIn} / {@link #copyOut}
 * until it {@link #release}s it. Not thread-safe: a connection's target runs on the thread that serves it.
 */
public final class SoftwareTarget {

    private static final MemoryAccess MEMORY = Internals.memory();
    private static final AtomicOp[] ATOMICS = AtomicOp.values();

    private final MemoryDomain domain;
    private final AccessScope connection;

    /**
     * @param domain     the memory domain whose grants the peer may use
     * @param connection the connection requests arrive through (grants scoped to another one are refused)
     */
    public SoftwareTarget(MemoryDomain domain, AccessScope connection) {
        this.domain = domain;
        this.connection = connection;
    }

    /** The one refusal, whatever the reason: a refusal must not tell live keys apart. */
    public static RemoteAccessException refused() {
        return new RemoteAccessException(MemoryDomain.REFUSED);
    }

    /** {@link #refused()}, keeping what went wrong underneath (memory freed under the access) for the logs. */
    public static RemoteAccessException refused(Throwable cause) {
        return new RemoteAccessException(MemoryDomain.REFUSED, cause);
    }

    /** The atomic a peer names by its wire code (its ordinal), or null when there is none. */
    public static @Nullable AtomicOp atomicOp(int code) {
        return code >= 0 && code < ATOMICS.length ? ATOMICS[code] : null;
    }

    /** Whether an atomic may be {@code width} bytes wide. */
    public static boolean atomicWidth(int width) {
        return width == 4 || width == 8;
    }

    /**
     * The grant under {@code key} that allows {@code needed} on {@code [address, address + length)} for this
     * connection, pinned until {@link #release}; null when refused. Costs a map lookup, no allocation.
     */
    public @Nullable Grant tryResolve(long key, long address, long length, Access needed) {
        return MEMORY.tryResolveRemote(domain, key, address, length, needed, connection);
    }

    /** Ends an access that {@link #tryResolve} started. */
    public void release(Grant pinned) {
        MEMORY.unpin(pinned);
    }

    /**
     * Writes {@code length} bytes of {@code source} from {@code sourceOffset} to {@code address} in a grant pinned by
     * {@link #tryResolve} with {@link Access#REMOTE_WRITE} over them. False when the memory went meanwhile.
     */
    public boolean copyIn(Grant pinned, long address, MemorySegment source, long sourceOffset, long length) {
        try {
            MemorySegment.copy(source, sourceOffset, pinned.window(), pinned.offsetOf(address), length);
            return true;
        } catch (IllegalStateException memoryGone) {
            return false;
        }
    }

    /**
     * Reads {@code length} bytes at {@code address} of a grant pinned by {@link #tryResolve} with
     * {@link Access#REMOTE_READ} over them into {@code destination} at {@code destinationOffset}. False when the
     * memory went meanwhile.
     */
    public boolean copyOut(Grant pinned, long address, MemorySegment destination, long destinationOffset,
                           long length) {
        try {
            MemorySegment.copy(pinned.window(), pinned.offsetOf(address), destination, destinationOffset, length);
            return true;
        } catch (IllegalStateException memoryGone) {
            return false;
        }
    }

    /** A put of {@code length} bytes of {@code source} to {@code address} under {@code key}; false when refused. */
    public boolean tryPut(long key, long address, MemorySegment source, long sourceOffset, long length) {
        return transfer(key, address, length, Access.REMOTE_WRITE, source, sourceOffset);
    }

    /** As {@link #tryPut}, throwing {@link #refused()}. */
    public void put(long key, long address, MemorySegment source, long sourceOffset, long length) {
        if (!tryPut(key, address, source, sourceOffset, length)) {
            throw refused();
        }
    }

    /** A get of {@code length} bytes at {@code address} under {@code key}; false when refused. */
    public boolean tryGet(long key, long address, MemorySegment destination, long destinationOffset, long length) {
        return transfer(key, address, length, Access.REMOTE_READ, destination, destinationOffset);
    }

    /** As {@link #tryGet}, throwing {@link #refused()}. */
    public void get(long key, long address, MemorySegment destination, long destinationOffset, long length) {
        if (!tryGet(key, address, destination, destinationOffset, length)) {
            throw refused();
        }
    }

    /** A one-shot put ({@code needed} is {@link Access#REMOTE_WRITE}) or get, pinned for the copy only. */
    private boolean transfer(long key, long address, long length, Access needed, MemorySegment local,
                             long localOffset) {
        Grant g = tryResolve(key, address, length, needed);
        if (g == null) {
            return false;
        }
        try {
            return needed == Access.REMOTE_WRITE ? copyIn(g, address, local, localOffset, length)
                    : copyOut(g, address, local, localOffset, length);
        } finally {
            release(g);
        }
    }

    /**
     * Runs {@code op} on the {@code width}-byte word at {@code address} under {@code key} as a hardware atomic
     * ({@link AtomicOp#applyTo}) and returns the word's previous value.
     *
     * @throws RemoteAccessException {@link #refused()} for a width other than 4 or 8, an address not aligned to it,
     *                               no grant allowing the atomic there, or memory gone under it
     */
    public long atomic(AtomicOp op, int width, long key, long address, long operand, long compare) {
        // Software-checked addresses keep the alignment of the bytes they name (NativeRegistration
        // .checkedInSoftware), so this is the word's own alignment; the VarHandle refuses a misaligned word again.
        if (!atomicWidth(width) || (address & (width - 1)) != 0) {
            throw refused();
        }
        Grant g = tryResolve(key, address, width, Access.REMOTE_ATOMIC);
        if (g == null) {
            throw refused();
        }
        try {
            return op.applyTo(g.window(), g.offsetOf(address), width, operand, compare);
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw refused(e);
        } finally {
            release(g);
        }
    }
}
