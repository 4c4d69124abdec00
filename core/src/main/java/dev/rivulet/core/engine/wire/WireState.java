package dev.rivulet.core.engine.wire;

import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.error.TransportException;
import org.jspecify.annotations.Nullable;

/**
 * One connection's end states as its wire sees them: closed by the engine, broken by a failure (the first cause is
 * kept), or both. A wire reports a break to the engine exactly once, when {@link #breakWith} says so, and ends every
 * operation still posted when it closes with {@link #closeCause()}: what broke the connection, else the close.
 * Progress thread only.
 */
public final class WireState {

    private boolean closed;
    private @Nullable TransportException brokenBy;

    /** Whether the engine closed the wire. */
    public boolean isClosed() {
        return closed;
    }

    /** Whether the connection broke (it may be closed as well). */
    public boolean isBroken() {
        return brokenBy != null;
    }

    /** What broke the connection, or null. */
    public @Nullable TransportException brokenBy() {
        return brokenBy;
    }

    /** Marks the wire closed; false when it was already, so that a close runs once. */
    public boolean close() {
        if (closed) {
            return false;
        }
        closed = true;
        return true;
    }

    /**
     * Records {@code cause} as what broke the connection. True when the wire must report it to the engine now: the
     * first break of a wire that is not closed (a closed wire's engine has let go; a second cause adds nothing).
     */
    public boolean breakWith(TransportException cause) {
        if (brokenBy != null || closed) {
            return false;
        }
        brokenBy = cause;
        return true;
    }

    /** What operations still posted when the wire closes end with: what broke the connection, or the close. */
    public TransportException closeCause() {
        TransportException b = brokenBy;
        return b != null ? b : new ResourceClosedException("endpoint closed before the operation completed");
    }

    /** Refuses a post to a closed wire. */
    public void ensureOpen() {
        if (closed) {
            throw new ResourceClosedException("endpoint is closed");
        }
    }

    /** Refuses a post to a closed wire, or to a broken connection to {@code remoteAddress}. */
    public void ensureUsable(String remoteAddress) {
        ensureOpen();
        if (brokenBy != null) {
            throw new ConnectionLostException("connection to " + remoteAddress + " is broken");
        }
    }
}
