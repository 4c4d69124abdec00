package dev.rivulet.rdma.verbs;

import dev.rivulet.core.Capabilities;
import dev.rivulet.core.engine.Op;
import dev.rivulet.core.engine.OpKind;
import dev.rivulet.core.engine.Wire;
import dev.rivulet.core.engine.WireEvents;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.ProviderException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.internal.MemoryAccess;
import dev.rivulet.core.liveness.LivenessSettings;
import dev.rivulet.core.loop.ProgressLoop;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.sys.Errno;
import dev.rivulet.rdma.verbs.sys.IbvCq;
import dev.rivulet.rdma.verbs.sys.IbvSendWr;
import dev.rivulet.rdma.verbs.sys.IbvSge;
import dev.rivulet.rdma.verbs.sys.IbvWc;
import dev.rivulet.rdma.wire.ConnectionFate;
import dev.rivulet.rdma.wire.OwedReceives;
import dev.rivulet.rdma.wire.RdmaWire;
import dev.rivulet.rdma.wire.WriteTimeout;
import org.jspecify.annotations.Nullable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static dev.rivulet.rdma.verbs.sys.VerbsConstants.*;

/**
 * One Rivulet endpoint on an RC queue pair: the engine's {@link Wire} in terms of {@code ibv_post_send},
 * {@code ibv_post_recv} and {@code ibv_poll_cq}.
 *
 * <ul>
 *   <li><b>Messages</b> are {@code SEND_WITH_IMM}: the control word rides in the immediate ({@link ImmediateWord}),
 *       protocol-only words ({@code CREDIT}, {@code CLOSE}) are zero-byte sends. Payloads up to the inline limit are
 *       copied into the request ({@code IBV_SEND_INLINE}).</li>
 *   <li><b>Receives</b>: {@link VerbsReceives}.</li>
 *   <li><b>Posting</b>: requests are staged when the engine hands them over and posted as one chain per poll
 *       ({@link SendChain}); {@link SendQueue} decides which are signalled (selective signalling) and retires the
 *       silent ones with the next signalled completion. A full send queue is {@code NO_RESOURCE} (the engine's
 *       pending FIFO), as is {@code ENOMEM} from the provider, on which the chain simply stays staged.</li>
 *   <li><b>Puts, gets, atomics, flush</b>: {@link VerbsRma}. <b>Fence</b> needs nothing here: the engine holds a
 *       fenced operation until everything before it has completed, which is more than {@code IBV_SEND_FENCE}
 *       (reads and atomics only) would give.</li>
 *   <li><b>Errors</b> become typed exceptions ({@link CompletionErrors}). A reliable connection goes to the error
 *       state on the first failure: the failed request fails with its own error, the ones before it (which the queue
 *       completed in order) succeed, and every later one, flushed, fails with the cause that closes the endpoint.
 *       How the connection ends, from the data path, rdma_cm or the bootstrap channel, is
 *       {@link ConnectionFate}'s.</li>
 * </ul>
 * How it ends, and what it reports after closing, is {@link RdmaWire}'s. Progress thread only, except where noted
 * (set-up, {@link #peerGone}, {@link #cmDisconnected}).
 */
final class VerbsWire extends RdmaWire {

    private static final MemoryAccess MEMORY = Internals.memory();

    /** Receive buffers kept posted for protocol-only words on top of the engine's data slots. */
    static final int CONTROL_SLOTS = OwedReceives.CONTROL_SLOTS;
    /** Send slots beyond the engine's depth: its protocol-only words (a credit grant and a close) and a flush. */
    static final int EXTRA_SEND_SLOTS = 4;

    /** Send-queue slot kinds. */
    static final byte OPERATION = 1;
    static final byte CONTROL = 2;
    static final byte FLUSH = 3;

    private final QueuePair qp;
    private final MemorySegment cq;
    private final int messageSize;
    private final int maxInline;
    private final int maxPoll;
    private final WriteTimeout writeTimeout;
    private final SendQueue sq;
    private final Arena arena = Arena.ofShared();
    private final SendChain chain;
    private final VerbsRma rma;
    private final VerbsReceives receives;
    private final MemorySegment wcs;

    /** Completions the waiter found while arming the CQ, to be handled first by the next poll. */
    private int stashed;
    /** A receive post that failed outside {@link #poll}, reported by the next poll. */
    private @Nullable TransportException postFailure;
    /** Set once the queue pair went to the error state: nothing more is posted. */
    private @Nullable TransportException qpFailure;
    private volatile boolean cmDisconnected;

    VerbsWire(QueuePair qp, MemoryDomain memory, Capabilities caps, String remoteAddress, ProgressLoop loop,
              int messageSize, int maxInline, int maxPoll, int signalInterval, boolean flushByRead,
              LivenessSettings liveness) {
        super(CompletionErrors.PROVIDER, caps, remoteAddress, loop, liveness);
        this.qp = qp;
        this.cq = qp.cq;
        this.messageSize = messageSize;
        this.maxInline = Math.min(maxInline, qp.maxInline);
        this.maxPoll = maxPoll;
        this.writeTimeout = new WriteTimeout(liveness);
        // Never more slots than the provider made: a send queue full of unsignalled requests could never drain.
        int sendSlots = Math.min(caps.sendQueueDepth() + EXTRA_SEND_SLOTS, qp.maxSendWr);
        int recvSlots = Math.min(caps.receiveQueueDepth() + CONTROL_SLOTS, qp.maxRecvWr);
        this.sq = new SendQueue(sendSlots, signalInterval);
        this.chain = new SendChain(sq, qp.qp, arena, loop, writeTimeout);
        this.receives = new VerbsReceives(recvSlots, qp.qp, memory, messageSize, fate, arena);
        this.wcs = IbvWc.allocateArray(arena, maxPoll);
        try {
            this.rma = new VerbsRma(sq, chain, memory, arena, this.maxInline, flushByRead);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /**
     * Set-up thread, before the connection is established and before the endpoint starts: posts the first receive
     * buffers (the protocol-only ones), so the peer's first words find a buffer.
     */
    void postInitialReceives() {
        TransportException e = receives.post();
        if (e != null) {
            throw e;
        }
    }

    /** rdma_cm reported the connection disconnected (the peer closed it, or it failed). rdma_cm thread. */
    void cmDisconnected() {
        cmDisconnected = true;
        loop.wake();
    }

    // ---------------------------------------------------------------------------------------------- posting

    @Override
    public int send(long controlWord, Op op) {
        ensureOpen();
        int imm = ImmediateWord.encode(controlWord);
        int slot = sq.reserve(op == null ? CONTROL : OPERATION, op);
        if (slot < 0) {
            return NO_RESOURCE;
        }
        MemorySegment wr = chain.wr(slot);
        int length = op == null ? 0 : op.buffer().length();
        if (length == 0) {
            IbvSendWr.sendWithImm(wr, slot, MemorySegment.NULL, 0, imm, 0);
        } else {
            Buffer b = op.buffer();
            MemorySegment sge = chain.sge(slot);
            IbvSge.set(sge, b.address(), length, VerbsDevice.lkey(MEMORY.descriptor(b.region())));
            IbvSendWr.sendWithImm(wr, slot, sge, 1, imm, length <= maxInline ? IBV_SEND_INLINE : 0);
        }
        chain.staged(slot, length);
        return POSTED;
    }

    @Override
    public void postReceives(int count) {
        receives.owe(count);
        // Posted now, not with the next poll: the credits for them may leave with the very next send.
        TransportException e = postOwedReceives();
        if (e != null && postFailure == null) {
            postFailure = e;
        }
    }

    private @Nullable TransportException postOwedReceives() {
        return qpFailure != null ? null : receives.post();
    }

    @Override
    public int rma(Op op) {
        ensureOpen();
        return rma.post(op);
    }

    @Override
    public int flush(Op op) {
        ensureOpen();
        return rma.flush(op);
    }

    @Override
    public int maxBatchBytes() {
        return messageSize;
    }

    /**
     * Posts the staged chain; a failure other than {@code ENOMEM} breaks the connection. Returns the requests
     * posted.
     */
    private int postStaged(WireEvents events) {
        if (qpFailure != null) {
            return 0;
        }
        int posted = chain.post();
        int rc = chain.takeError();
        if (rc != 0) {
            fate.broken(events, new ProviderException("ibv_post_send failed", CompletionErrors.PROVIDER, rc,
                    Errno.describe(rc), null));
        }
        return posted;
    }

    private void ensureOpen() {
        fate.ensureOpen();
        if (qpFailure != null) {
            throw qpFailure;
        }
    }

    // ---------------------------------------------------------------------------------------------- reaping

    @Override
    protected int progress(WireEvents events) {
        if (rma.retrying() && qpFailure == null) {
            rma.stageRetries();
        }
        int work = postStaged(events);
        if (fate.closed()) {
            return work;
        }
        int n;
        if (stashed > 0) {
            n = stashed;
            stashed = 0;
        } else {
            n = IbvCq.poll(cq, maxPoll, wcs);
        }
        if (n < 0) {
            fate.broken(events, new ProviderException("ibv_poll_cq failed", CompletionErrors.PROVIDER, -n, null,
                    null));
            return work + 1;
        }
        for (int i = 0; i < n && !fate.closed(); i++) {
            complete(events, i);
        }
        work += n;
        if (fate.closed()) {
            return work;
        }
        TransportException failure = postFailure != null ? postFailure : postOwedReceives();
        if (failure != null) {
            postFailure = null;
            fate.broken(events, failure);
            return work + 1;
        }
        return work + checkPeer(events);
    }

    private void complete(WireEvents events, int i) {
        long wrId = IbvWc.wrId(wcs, i);
        int status = IbvWc.status(wcs, i);
        if (ReceiveRing.isReceive(wrId)) {
            received(events, ReceiveRing.slotOf(wrId), status, i);
        } else {
            sent(events, (int) wrId, status, IbvWc.vendorErr(wcs, i));
        }
    }

    /**
     * The events and error of the retirement running now: the retirement callbacks are made once and read these, so
     * reaping allocates nothing.
     */
    private WireEvents retireEvents;
    /** Retires a send-queue request that completed: its op completes (a swap that missed goes round again). */
    private final SendQueue.Retirement succeeded = this::retireSucceeded;

    private void retireSucceeded(int slot, byte kind, Object owner) {
        switch (kind) {
            case CONTROL -> retireEvents.controlCompleted();
            case FLUSH -> retireEvents.completed((Op) owner, 0);
            default -> {
                Op op = (Op) owner;
                if (op.kind() == OpKind.ATOMIC) {
                    rma.atomicCompleted(retireEvents, slot, op);
                } else {
                    retireEvents.completed(op, 0);
                }
            }
        }
    }

    private TransportException retireError;
    /** Retires a send-queue request that failed, with {@link #retireError}. */
    private final SendQueue.Retirement failed = (slot, kind, owner) -> {
        if (kind == CONTROL) {
            retireEvents.controlCompleted(); // protocol words are best effort; the endpoint is closing anyway
        } else {
            retireEvents.failed((Op) owner, retireError);
        }
    };

    private void sent(WireEvents events, int slot, int status, int vendorErr) {
        retireEvents = events;
        if (status == IBV_WC_SUCCESS) {
            if (sq.completeThrough(slot, succeeded) < 0) {
                fate.broken(events, new ProviderException("completion for send slot " + slot + " that holds no "
                        + "signalled request", CompletionErrors.PROVIDER, 0, null, null));
            }
            return;
        }
        if (CompletionErrors.isFlush(status)) {
            // The queue pair is in the error state for another reason; whether the silent requests before this one
            // completed cannot be known: they fail with the cause, as unknown outcomes.
            TransportException cause = lossCause();
            retireError = cause;
            sq.completeBefore(slot, failed);
            sq.completeOldestIf(slot, failed);
            failQueuePair(events, cause);
            return;
        }
        byte kind = sq.kind(slot);
        Object owner = sq.owner(slot);
        OpKind opKind = kind == FLUSH ? OpKind.FLUSH : kind == CONTROL ? OpKind.SEND : ((Op) owner).kind();
        TransportException error = CompletionErrors.forOperation(opKind, status, vendorErr);
        // Reliable connections complete in order: everything before the failed request succeeded.
        sq.completeBefore(slot, succeeded);
        retireError = error;
        sq.completeOldestIf(slot, failed);
        failQueuePair(events, CompletionErrors.queuePairFailed(opKind, error, status, vendorErr));
    }

    private void failQueuePair(WireEvents events, TransportException cause) {
        if (qpFailure == null) {
            qpFailure = cause;
        }
        rma.failRetries(events, cause);
        if (!fate.closed()) {
            fate.broken(events, cause);
        }
    }

    private void received(WireEvents events, int slot, int status, int i) {
        if (!receives.isOldest(slot)) {
            fate.broken(events, new ProviderException("receive completion out of posting order (slot " + slot + ")",
                    CompletionErrors.PROVIDER, 0, null, null));
            return;
        }
        if (status == IBV_WC_SUCCESS) {
            receives.arrived(events, (IbvWc.wcFlags(wcs, i) & IBV_WC_WITH_IMM) != 0, IbvWc.immData(wcs, i),
                    IbvWc.byteLen(wcs, i));
            return;
        }
        receives.dropOldest();
        if (!CompletionErrors.isFlush(status)) {
            failQueuePair(events, CompletionErrors.forReceive(status, IbvWc.vendorErr(wcs, i)));
        } else if (qpFailure == null) {
            // Our receives are flushed: the peer disconnected, or the queue pair failed. A graceful close says
            // goodbye on the bootstrap channel within moments; otherwise it is a loss.
            fate.noteLoss(lossCause(), loop.coarseNanos());
        }
    }

    /**
     * The peer's fate from the bootstrap channel and rdma_cm, and operations stalled past the write timeout. Returns
     * 1 when something was reported.
     */
    private int checkPeer(WireEvents events) {
        long now = loop.coarseNanos();
        // Its peer's goodbye carries no count (a verbs wire says goodbye before its last messages may have left).
        if (fate.reportPeer(events, now, receives.messagesArrived(), true)) {
            return 1;
        }
        if (cmDisconnected && !fate.peerClosed()) {
            fate.noteLoss(new ConnectionLostException("rdma_cm reported the connection to " + remoteAddress()
                    + " disconnected"), now);
        }
        if (fate.breakIfLossOutlived(events, now)) {
            return 1;
        }
        if (now - sq.oldestDueBy() > 0) {
            fate.broken(events, writeTimeout.stalled(remoteAddress(), CompletionErrors.PROVIDER));
            return 1;
        }
        return 0;
    }

    /**
     * Waiter, before the polling thread sleeps: arms the CQ and polls it once more. Returns true when the thread must
     * not sleep: completions arrived (kept for the next {@link #poll}), or requests wait to be posted.
     */
    boolean armAndCheck() {
        if (fate.closed() || stashed > 0 || sq.staged() > 0 || rma.retrying() || fate.peerGone() || cmDisconnected) {
            return !fate.closed();
        }
        IbvCq.reqNotify(cq, 0);
        int n = IbvCq.poll(cq, maxPoll, wcs);
        if (n != 0) {
            stashed = Math.max(n, 0);
            return true;
        }
        return false;
    }

    /** What requests flushed by a queue pair in the error state end with. */
    private TransportException lossCause() {
        if (qpFailure != null) {
            return qpFailure;
        }
        TransportException cause = fate.breakCause();
        if (cause != null) {
            return cause;
        }
        if (fate.closed()) {
            return new ResourceClosedException("endpoint closed before the operation completed");
        }
        return new ConnectionLostException("the connection to " + remoteAddress() + " went to the error state");
    }

    // ---------------------------------------------------------------------------------------------- teardown

    /**
     * What the engine handed over last (its close word among it) leaves before the queue pair goes: best effort, the
     * goodbye on the bootstrap connection says the same should the queue pair not carry it. The goodbye carries no
     * count ({@link #messagesSent}): the peer takes the close as soon as it hears it.
     */
    @Override
    protected void lastPosts() {
        if (qpFailure == null) {
            chain.post();
        }
    }

    @Override
    protected void releaseQueues() {
        qp.destroy(); // from here the device touches none of our buffers: drainAfterClose may release them
    }

    /**
     * Set-up thread: lets go of a wire whose connection was never established (the endpoint never started): the
     * queue pair first, then the buffers it held.
     */
    void discard() {
        fate.close();
        qp.destroy();
        releaseBuffers();
    }

    @Override
    protected int drainAfterClose(WireEvents events) {
        retireEvents = events;
        retireError = fate.closedCause();
        int n = sq.drain(failed);
        n += rma.failRetries(events, retireError);
        n += releaseBuffers();
        return n;
    }

    private int releaseBuffers() {
        int n = receives.releaseAll();
        rma.close();
        arena.close();
        return n;
    }

    @Override
    public String toString() {
        return "verbs wire to " + remoteAddress();
    }
}
