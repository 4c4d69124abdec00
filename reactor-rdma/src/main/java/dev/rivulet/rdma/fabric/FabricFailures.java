package dev.rivulet.rdma.fabric;

import dev.rivulet.core.engine.Op;
import dev.rivulet.core.engine.OpKind;
import dev.rivulet.core.engine.WireEvents;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.rdma.fabric.sys.FiCqErrEntry;
import dev.rivulet.rdma.fabric.sys.FidCq;
import dev.rivulet.rdma.fabric.sys.Libfabric;
import dev.rivulet.rdma.wire.ConnectionFate;
import dev.rivulet.rdma.wire.OperationErrors;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

import static dev.rivulet.rdma.fabric.sys.FiConstants.*;

/**
 * The error entries of a {@link FabricWire}'s completion queue ({@code fi_cq_readerr}): each becomes the typed
 * exception its operation fails with ({@link #classify}), carrying {@code fi_strerror} and the provider's own text,
 * and decides what happens to the endpoint. A failed receive of the peer's breaks it, one holding a message larger
 * than the agreed eager size is a stranger's and only dropped (error entries carry no sender, and ending the endpoint
 * there would let anyone who reaches it close it); a lost message, operation or protocol word (whose credits are
 * lost with it) breaks it unless the peer's goodbye follows ({@link ConnectionFate#noteLoss}); on providers whose
 * connection ends with a refused one-sided operation the refusal breaks it at once, since whatever is posted next
 * would fail at random. Progress thread only.
 */
final class FabricFailures {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(FabricFailures.class);
    /** How long an operation that failed with ECANCELED waits for the bootstrap channel to report a lost peer. */
    private static final long REFUSAL_GRACE_NANOS = 250_000_000L;

    private final FabricLink link;
    private final MemorySegment cq;
    private final MemorySegment errEntry;
    private final ConnectionFate fate;
    private final FabricReceives receives;
    private final RendezvousReader reader;
    private final String remoteAddress;
    /** A one-sided operation that failed with ECANCELED, with the provider's text. */
    private record Held(Op op, String text) {
    }

    /** Operations that failed with ECANCELED, waiting to learn whether the peer is still there. */
    private final ArrayDeque<Held> heldRefusals = new ArrayDeque<>();
    private long refusalSeen;

    FabricFailures(FabricLink link, MemorySegment cq, Arena arena, ConnectionFate fate, FabricReceives receives,
                   RendezvousReader reader, String remoteAddress) {
        this.link = link;
        this.cq = cq;
        this.errEntry = FiCqErrEntry.allocate(arena);
        this.fate = fate;
        this.receives = receives;
        this.reader = reader;
        this.remoteAddress = remoteAddress;
    }

    /** Reads the error entry waiting in the queue ({@code -FI_EAVAIL}) and settles what failed. */
    void readError(WireEvents events) {
        errEntry.fill((byte) 0);
        long rc = FidCq.readerr(cq, errEntry, 0);
        if (rc < 0) {
            fate.broken(events, link.error("fi_cq_readerr", rc));
            return;
        }
        int err = FiCqErrEntry.err(errEntry);
        int provErrno = FiCqErrEntry.provErrno(errEntry);
        String text = Libfabric.strerror(err) + "; provider: " + FidCq.strerror(cq, provErrno,
                FiCqErrEntry.errData(errEntry));
        ContextSlots slots = link.slots;
        int slot = slots.slotOf(FiCqErrEntry.opContext(errEntry).address());
        if (slot < 0) {
            LOG.debug("error without a context of ours from {}: {}", remoteAddress, text); // nothing of ours failed
            return;
        }
        String provider = link.provider();
        if (slots.kind(slot) == ContextSlots.RECEIVE) {
            boolean stranger = err == FI_ETRUNC || err == FI_EMSGSIZE;
            receives.failed(events, slot, stranger); // released, in its turn, by deliverInOrder
            if (!stranger && err != FI_ECANCELED && !fate.closed()) {
                fate.broken(events, new ConnectionLostException("receive failed", provider, err, text, null));
            }
            return;
        }
        byte kind = slots.kind(slot);
        Object owner = slots.owner(slot);
        slots.release(slot);
        switch (kind) {
            case ContextSlots.CONTROL, ContextSlots.DONE_WORD -> {
                LOG.debug("error for a control word to {}: {}", remoteAddress, text);
                if (kind == ContextSlots.CONTROL) {
                    events.controlCompleted();
                }
                if (!fate.closed() && lostConnection(err)) {
                    // What the word carried (credits, a rendezvous read's end) never reaches the peer, and nothing
                    // else need ever fail: a reset may end the provider's connection while the bootstrap channel
                    // lives on, and a peer waiting for those credits then posts nothing more. So the word's loss
                    // ends the connection as a lost message does, unless the peer's goodbye follows.
                    fate.noteLoss(new ConnectionLostException("control word lost", provider, err, text, null),
                            link.now());
                }
            }
            case ContextSlots.RTS_SEND -> {
                ((Buffer) owner).release();
                fate.broken(events, new ConnectionLostException("rendezvous request failed", provider, err, text,
                        null));
            }
            case ContextSlots.RNDV_READ -> {
                ((Buffer) owner).release();
                reader.pieceFailed();
                fate.broken(events, new ConnectionLostException("rendezvous read failed", provider, err, text,
                        null));
            }
            default -> operationFailed(events, (Op) owner, err, text);
        }
    }

    private void operationFailed(WireEvents events, Op op, int err, String text) {
        TransportException error = classify(op, err, text);
        boolean refusalEnds = link.fabric.refusalDropsConnection;
        if (!fate.closed() && err == FI_ECANCELED && error instanceof RemoteAccessException && refusalEnds) {
            // tcp reports a refusal and an operation flushed by a connection that died the same way (ECANCELED):
            // it is a refusal only if the peer is still there a moment later.
            if (heldRefusals.isEmpty()) {
                refusalSeen = link.now();
            }
            heldRefusals.addLast(new Held(op, text));
            return;
        }
        events.failed(op, error);
        if (fate.closed()) {
            return;
        }
        if (error instanceof RemoteAccessException && refusalEnds) {
            // The provider's connection is gone with the refusal (or soon will be): end the endpoint now, once,
            // rather than let whatever is posted next fail at random.
            fate.broken(events, refusalEnded(op.kind(), err, text));
        } else if (error instanceof ConnectionLostException) {
            // A message or operation lost with the connection: the credits and order behind it cannot be trusted
            // any more, unless it was the peer's graceful close that reset it.
            fate.noteLoss(error, link.now());
        }
    }

    /**
     * Maps a completion error to the exception a caller can act on. One-sided operations refused by the target
     * surface differently per provider: sockets as EACCES, verbs as a remote access error, tcp (rxm, with
     * FI_DELIVERY_COMPLETE) as ECANCELED for an unknown key, a missing right and an address outside the window
     * alike; all are a remote access error with the one refusal text every transport uses. A connection that died
     * under the operation is reported by sockets as EIO (its "disconnected" completion) and by tcp as a reset, a
     * refused reconnect, a timeout or, when it was already gone, ENOTCONN / EPIPE: whatever the operation, that is a
     * lost connection. Operations flushed by a close are {@link ResourceClosedException}s.
     */
    private TransportException classify(Op op, int err, String text) {
        String provider = link.provider();
        if (fate.closed()) {
            TransportException cause = fate.breakCause();
            return cause != null ? cause : new ResourceClosedException(op.kind() + " flushed: the endpoint closed",
                    provider, err, text, null);
        }
        if (lostConnection(err)) {
            return OperationErrors.lost(op.kind(), provider, err, text);
        }
        return switch (err) {
            case FI_EACCES, FI_EKEYREJECTED, FI_EINVAL, FI_EFAULT, FI_ECANCELED ->
                    OperationErrors.refused(op.kind(), provider, err, text);
            default -> OperationErrors.failed(op.kind(), provider, err, text);
        };
    }

    /** Whether {@code err} is one of the codes that say the provider's connection to the peer died. */
    private static boolean lostConnection(int err) {
        return switch (err) {
            case FI_EIO, FI_ECONNRESET, FI_ECONNABORTED, FI_ECONNREFUSED, FI_ETIMEDOUT, FI_EHOSTUNREACH, FI_ENOTCONN,
                 FabricErrors.EPIPE -> true;
            default -> false;
        };
    }

    /** Whether operations held as possible refusals are due to be settled now. */
    boolean settleDue() {
        return !heldRefusals.isEmpty() && (fate.peerGone() || link.now() - refusalSeen > REFUSAL_GRACE_NANOS);
    }

    /**
     * Ends the operations held by a possible refusal: with the connection's loss when the bootstrap channel says the
     * peer is gone (or gone away), else as refusals, after which the endpoint closes (the provider dropped its
     * connection). Returns whether the endpoint was closed.
     */
    boolean settleHeldRefusals(WireEvents events) {
        boolean gone = fate.peerGone();
        String provider = link.provider();
        Held last = null;
        Held held;
        while ((held = heldRefusals.pollFirst()) != null) {
            last = held;
            OpKind kind = held.op().kind();
            events.failed(held.op(), gone ? new ConnectionLostException(kind + " failed: the peer is gone",
                    provider, FI_ECANCELED, held.text(), null)
                    : OperationErrors.refused(kind, provider, FI_ECANCELED, held.text()));
        }
        if (gone || fate.closed() || last == null) {
            return false; // the peer's own event (goodbye or loss) closes the endpoint in this poll
        }
        fate.broken(events, refusalEnded(last.op().kind(), FI_ECANCELED, last.text()));
        return true;
    }

    private ConnectionLostException refusalEnded(OpKind kind, int err, String text) {
        return OperationErrors.refusalEnded(kind, "the " + link.provider() + " provider ends its connection",
                link.provider(), err, text);
    }

    /** The wire closed: operations still held fail with {@code cause}; returns how many. */
    int failHeld(WireEvents events, TransportException cause) {
        int n = 0;
        Held held;
        while ((held = heldRefusals.pollFirst()) != null) {
            events.failed(held.op(), cause);
            n++;
        }
        return n;
    }
}
