package dev.rivulet.rdma.wire;

import dev.rivulet.core.Capabilities;
import dev.rivulet.core.engine.Wire;
import dev.rivulet.core.engine.WireEvents;
import dev.rivulet.core.liveness.LivenessSettings;
import dev.rivulet.core.loop.ProgressLoop;
import dev.rivulet.rdma.bootstrap.LivenessChannel;
import org.jspecify.annotations.Nullable;

/**
 * The part of an RDMA {@link Wire} that is the same on libfabric and on verbs: its life around the library's queues.
 * The connection's fate ({@link ConnectionFate}) is heard from the bootstrap liveness channel ({@link #peerGone}),
 * and the channel ends with the wire: a goodbye after an orderly close, an abort after a break, so the peer can tell
 * them apart. A close runs once, in a fixed order: the transport's own step ({@link #beforeClose}, e.g. taking the
 * queue out of the loop's waiter), what the wire still owes the peer ({@link #lastPosts}), the goodbye or abort, then
 * the library's resources ({@link #releaseQueues}) whatever the steps before threw, since a close stopped half-way
 * would keep them for good. After that nothing writes the wire's buffers, and the first poll reports every operation still posted
 * ({@link #drainAfterClose}). Progress thread only, except {@link #peerGone}.
 */
public abstract class RdmaWire implements Wire, LivenessChannel.Listener {

    protected final ConnectionFate fate;
    protected final ProgressLoop loop;
    private final Capabilities caps;
    private final String remoteAddress;
    /** The bootstrap connection, watching the peer once the endpoint runs; null before (and in tests without one). */
    private volatile @Nullable LivenessChannel channel;
    private Runnable beforeClose = () -> { };

    protected RdmaWire(String provider, Capabilities caps, String remoteAddress, ProgressLoop loop,
                       LivenessSettings liveness) {
        this.fate = new ConnectionFate(provider, remoteAddress, liveness);
        this.caps = caps;
        this.remoteAddress = remoteAddress;
        this.loop = loop;
    }

    /** The bootstrap connection that says goodbye (orderly close) or is aborted (broken) when the wire closes. */
    public final void attach(LivenessChannel c) {
        this.channel = c;
        fate.waitForGoodbyeOn(c);
    }

    /** Runs first in {@link #close()}, before the library's queues are released. */
    public final void beforeClose(Runnable r) {
        this.beforeClose = r;
    }

    /** The bootstrap channel saw the peer say goodbye ({@code graceful}) or vanish. Any thread. */
    @Override
    public final void peerGone(boolean graceful, long messagesSent, @Nullable String reason) {
        fate.peerGone(graceful, messagesSent, reason);
        loop.wake();
    }

    @Override
    public final int poll(WireEvents events) {
        if (fate.closed()) {
            return fate.drainNow() ? drainAfterClose(events) : 0;
        }
        return progress(events);
    }

    @Override
    public final void close() {
        if (!fate.close()) {
            return;
        }
        try {
            beforeClose.run();
            if (!fate.isBroken()) {
                lastPosts();
            }
        } finally {
            try {
                endChannel();
            } finally {
                releaseQueues();
            }
        }
    }

    /**
     * Says goodbye, or aborts the channel after a break. Before the queues are released: releasing them ends the
     * provider's connection, which the peer notices as lost operations that then wait for this goodbye, so it must
     * already be on its way. The count is final by now: nothing is reaped between here and the release, and what the
     * release discards never completed.
     */
    private void endChannel() {
        LivenessChannel c = channel;
        if (c != null && fate.isBroken()) {
            c.abort(); // the peer sees its bootstrap connection end without a goodbye: a failure
        } else if (c != null) {
            c.goodbye(messagesSent());
        }
    }

    /** Reaps completions and arrivals of an open wire ({@link Wire#poll}). */
    protected abstract int progress(WireEvents events);

    /** On an orderly close, posts what the engine handed over last and is not on its way yet (best effort). */
    protected void lastPosts() {
    }

    /** Closes the library's queues: from here the provider touches none of the wire's buffers. */
    protected abstract void releaseQueues();

    /**
     * After close: every operation still posted is reported failed (or completed, if it did), every posted receive
     * buffer released. Returns how many.
     */
    protected abstract int drainAfterClose(WireEvents events);

    /**
     * How many messages this side's sends delivered to the peer's receives, which the goodbye tells the peer so it
     * takes the close only once they all arrived; -1 where the wire does not count them (the peer then takes the
     * close as soon as it hears it).
     */
    protected long messagesSent() {
        return -1;
    }

    @Override
    public final Capabilities capabilities() {
        return caps;
    }

    @Override
    public final String remoteAddress() {
        return remoteAddress;
    }
}
