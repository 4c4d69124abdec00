package dev.rivulet.core.resume;

import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.memory.Access;

import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * Memory this side exposed to its peer for the life of one session ({@link ResumableSession#expose}), with some of
 * the rights {@link Access#REMOTE_READ}, {@link Access#REMOTE_WRITE} and {@link Access#REMOTE_ATOMIC}. The peer
 * reaches it with the handle {@link #remote()} through that session only; the session's own thread applies each of
 * its operations once. {@link #close()}, or the session's end, withdraws it: every later operation under its handle
 * is refused. The memory stays the caller's: it must stay alive while exposed (an operation that finds it gone is
 * refused, nothing else happens).
 */
public final class SessionWindow implements AutoCloseable {

    private final Session session;
    private final long id;
    private final long key;
    private final MemorySegment memory;
    private final Set<Access> rights;
    private final SessionMemory remote;
    private volatile boolean withdrawn;

    SessionWindow(Session session, long tag, long id, long key, MemorySegment memory, Set<Access> rights) {
        this.session = session;
        this.id = id;
        this.key = key;
        this.memory = memory;
        this.rights = Set.copyOf(rights);
        this.remote = new SessionMemory(tag, id, key, 0, memory.byteSize());
    }

    /** The handle to send to the peer (for example as a session message, {@link SessionMemory#toBytes()}). */
    public SessionMemory remote() {
        if (withdrawn) {
            throw new ResourceClosedException("the session window was withdrawn");
        }
        return remote;
    }

    public long length() {
        return memory.byteSize();
    }

    public Set<Access> rights() {
        return rights;
    }

    public boolean isOpen() {
        return !withdrawn;
    }

    /** Withdraws the window: the peer's later operations under its handle are refused. Idempotent. */
    @Override
    public void close() {
        session.withdraw(this);
    }

    // ---- what the session applying an operation needs (under its lock) ----

    long id() {
        return id;
    }

    MemorySegment memory() {
        return memory;
    }

    /** Whether an operation with {@code key} may use {@code right} on {@code [offset, offset + n)}. */
    boolean allows(long key, Access right, long offset, long n) {
        return !withdrawn && key == this.key && rights.contains(right) && offset >= 0 && n >= 0
                && offset <= memory.byteSize() - n;
    }

    void markWithdrawn() {
        withdrawn = true;
    }

    @Override
    public String toString() {
        return "SessionWindow[" + id + ", " + memory.byteSize() + " bytes " + rights + (withdrawn ? ", withdrawn" : "")
                + "]";
    }
}
