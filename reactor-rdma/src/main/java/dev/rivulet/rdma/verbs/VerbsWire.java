package dev.rivulet.rdma.verbs;

import dev.rivulet.core.Capabilities;
import dev.rivulet.core.engine.AtomicOp;
import dev.rivulet.core.engine.ControlWord;
import dev.rivulet.core.engine.Op;
import dev.rivulet.core.engine.OpKind;
import dev.rivulet.core.engine.Wire;
import dev.rivulet.core.engine.WireEvents;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.OperationNotSupportedException;
import dev.rivulet.core.error.ProviderException;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.framing.BatchFraming;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.internal.MemoryAccess;
import dev.rivulet.core.liveness.LivenessSettings;
import dev.rivulet.core.loop.ProgressLoop;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.rdma.bootstrap.LivenessChannel;
import dev.rivulet.rdma.verbs.sys.IbvCq;
import dev.rivulet.rdma.verbs.sys.IbvQp;
import dev.rivulet.rdma.verbs.sys.IbvRecvWr;
import dev.rivulet.rdma.verbs.sys.IbvSendWr;
import dev.rivulet.rdma.verbs.sys.IbvSge;
import dev.rivulet.rdma.verbs.sys.IbvWc;
import dev.rivulet.core.sys.Errno;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;

import static dev.rivulet.rdma.verbs.sys.VerbsConstants.*;

/**
 * One Rivulet endpoint on an RC queue pair: the engine's {@link Wire} in terms of {@code ibv_post_send},
 * {@code ibv_post_recv} and {@code ibv_poll_cq}.
 *
 * <ul>
 *   <li><b>Messages</b> are {@code SEND_WITH_IMM}: the control word rides in the immediate ({@link ImmediateWord}),
 *       protocol-only words ({@code CREDIT}, {@code CLOSE}) are zero-byte sends. Payloads up to the inline limit are
 *       copied into the request ({@code IBV_SEND_INLINE}).</li>
 *   <li><b>Receives</b>: every posted buffer is {@code verbs.messageSize} bytes (the largest message); the engine's
 *       data slots plus {@link #CONTROL_SLOTS} buffers for protocol-only words stay posted, a consumed control buffer
 *       is reposted at once. On a reliable connection the peer cannot send without a credit, and the receive queue
 *       completes in order, so messages reach the engine in send order.</li>
 *   <li><b>Posting</b>: requests are staged when the engine hands them over and posted as one chain per poll (one
 *       doorbell); {@link SendQueue} decides which are signalled (selective signalling) and retires the silent ones
 *       with the next signalled completion. A full send queue is {@code NO_RESOURCE} (the engine's pending FIFO), as
 *       is {@code ENOMEM} from the provider, on which the chain simply stays staged for the next poll.</li>
 *   <li><b>Puts, gets, atomics</b>: {@code RDMA_WRITE} (inline when small), {@code RDMA_READ}, and the 64-bit
 *       {@code ATOMIC_FETCH_AND_ADD} / {@code ATOMIC_CMP_AND_SWP} with the previous value landing in a registered
 *       scratch word per send slot; a swap is a compare-and-swap repeated until it takes (verbs has no
 *       exchange). <b>Flush</b> (posted only once everything before it completed) is a signalled
 *       zero-length {@code RDMA_READ}: the responder executes it after every earlier request of the queue pair, and
 *       its response cannot overtake the writes before it, so once it completes every earlier put is in the target's
 *       memory. <b>Fence</b> needs nothing here: the engine holds a fenced operation until everything before it has
 *       completed, which is more than {@code IBV_SEND_FENCE} (reads and atomics only) would give.</li>
 *   <li><b>Errors</b> become typed exceptions ({@link CompletionErrors}). A reliable connection goes to the error
 *       state on the first failure: the failed request fails with its own error, the ones before it (which the queue
 *       completed in order) succeed, and every later one, flushed, fails with the cause that closes the endpoint.</li>
 * </ul>
 * Progress thread only, except where noted (set-up, {@link #peerGone}, {@link #cmDisconnected}).
 */
final class VerbsWire implements Wire, LivenessChannel.Listener {

    private static final Logger log = LoggerFactory.getLogger(VerbsWire.class);
    private static final MemoryAccess MEMORY = Internals.memory();

    /** Receive buffers kept posted for protocol-only words on top of the engine's data slots. */
    static final int CONTROL_SLOTS = 8;
    /** Send slots beyond the engine's depth: its protocol-only words (a credit grant and a close) and a flush. */
    static final int EXTRA_SEND_SLOTS = 4;

    /** Send-queue slot kinds. */
    static final byte OPERATION = 1;
    static final byte CONTROL = 2;
    static final byte FLUSH = 3;

    /** How long a flushed receive waits for the peer's goodbye before the endpoint breaks. */
    private static final long LOSS_GRACE_NANOS = 500_000_000L;
    /** One second per MiB: the slowest link a large operation is allowed before it counts as stalled. */
    private static final long NANOS_PER_BYTE = 1_000_000_000L / (1 << 20);

    private final QueuePair qp;
    private final MemorySegment qpSegment;
    private final MemorySegment cq;
    private final MemoryDomain memory;
    private final Capabilities caps;
    private final String remoteAddress;
    private final ProgressLoop loop;
    private final int messageSize;
    private final int maxInline;
    private final int maxPoll;
    private final boolean flushByRead;
    private final long writeTimeoutNanos;
    private final SendQueue sq;
    private final ReceiveRing<Buffer> rq;
    private final Arena arena = Arena.ofShared();
    /** Each slot's work request and scatter/gather entry, sliced once so that posting allocates nothing. */
    private final MemorySegment[] sendWrs;
    private final MemorySegment[] sendSges;
    private final MemorySegment[] recvWrs;
    private final MemorySegment[] recvSges;
    private final MemorySegment wcs;
    private final MemorySegment badWr;
    /** Each send slot's 8-byte landing place for an atomic's previous value, registered for the device to write. */
    private final MemoryRegion atomicResults;
    private final int atomicLkey;
    private final int[] baseFlags;
    private final long[] slotBytes;
    private final Buffer[] receiving;
    /** The bootstrap connection, watching the peer once the endpoint runs; null before. */
    private volatile LivenessChannel channel;
    private Runnable beforeClose = () -> { };

    /**
     * Swaps whose compare-and-swap found another value than guessed, to be tried again expecting that value. Verbs
     * has no exchange: a swap is a compare-and-swap repeated until the word held what it expected, which makes the
     * exchange atomic at the attempt that takes (the usual emulation; each attempt is one atomic at the target).
     */
    private final ArrayDeque<Op> swapRetries = new ArrayDeque<>();

    /** Completions the waiter found while arming the CQ, to be handled first by the next poll. */
    private int stashed;
    private int receivesToPost;
    private int controlToPost = CONTROL_SLOTS;
    /** Receive buffers posted beyond the credits outstanding (a coalesced frame of k messages used one buffer). */
    private int surplusBuffers;
    /** A receive post that failed outside {@link #poll}, reported by the next poll. */
    private TransportException postFailure;
    /** Set once the queue pair went to the error state: nothing more is posted. */
    private TransportException qpFailure;
    private TransportException breakCause;
    private TransportException pendingLoss;
    private long lossNoticed;
    private boolean brokenReported;
    private boolean peerEventReported;
    private volatile boolean peerClosed;
    private volatile boolean peerLost;
    private volatile String lostReason;
    private volatile boolean cmDisconnected;
    private boolean closed;
    private boolean drained;

    VerbsWire(QueuePair qp, MemoryDomain memory, Capabilities caps, String remoteAddress, ProgressLoop loop,
              int messageSize, int maxInline, int maxPoll, int signalInterval, boolean flushByRead,
              LivenessSettings liveness) {
        this.qp = qp;
        this.qpSegment = qp.qp;
        this.cq = qp.cq;
        this.memory = memory;
        this.caps = caps;
        this.remoteAddress = remoteAddress;
        this.loop = loop;
        this.messageSize = messageSize;
        this.maxInline = Math.min(maxInline, qp.maxInline);
        this.maxPoll = maxPoll;
        this.flushByRead = flushByRead;
        this.writeTimeoutNanos = liveness.writeTimeout().toNanos();
        // Never more slots than the provider made: a send queue full of unsignalled requests could never drain.
        int sendSlots = Math.min(caps.sendQueueDepth() + EXTRA_SEND_SLOTS, qp.maxSendWr);
        int recvSlots = Math.min(caps.receiveQueueDepth() + CONTROL_SLOTS, qp.maxRecvWr);
        this.sq = new SendQueue(sendSlots, signalInterval);
        this.rq = new ReceiveRing<>(recvSlots);
        this.sendWrs = slices(arena.allocate(IbvSendWr.LAYOUT, sendSlots), IbvSendWr.SIZE, sendSlots);
        this.sendSges = slices(arena.allocate(IbvSge.LAYOUT, sendSlots), IbvSge.SIZE, sendSlots);
        this.recvWrs = slices(arena.allocate(IbvRecvWr.LAYOUT, recvSlots), IbvRecvWr.SIZE, recvSlots);
        this.recvSges = slices(arena.allocate(IbvSge.LAYOUT, recvSlots), IbvSge.SIZE, recvSlots);
        this.wcs = IbvWc.allocateArray(arena, maxPoll);
        this.badWr = arena.allocate(ValueLayout.ADDRESS);
        try {
            this.atomicResults = memory.register(arena.allocate(8L * sendSlots, 8), Access.LOCAL);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
        this.atomicLkey = VerbsDevice.lkey(MEMORY.descriptor(atomicResults));
        this.baseFlags = new int[sendSlots];
        this.slotBytes = new long[sendSlots];
        this.receiving = new Buffer[recvSlots];
    }

    /**
     * Set-up thread, before the connection is established and before the endpoint starts: posts the first receive
     * buffers (the protocol-only ones), so the peer's first words find a buffer.
     */
    void postInitialReceives() {
        TransportException e = postPendingReceives();
        if (e != null) {
            throw e;
        }
    }

    /** The bootstrap connection that says goodbye (orderly close) or is aborted (broken) when the wire closes. */
    void attach(LivenessChannel c) {
        this.channel = c;
    }

    /** Runs first in {@link #close()}, before the queue pair is destroyed (takes the wire out of its waiter). */
    void beforeClose(Runnable r) {
        this.beforeClose = r;
    }

    /** The bootstrap channel saw the peer say goodbye ({@code graceful}) or vanish. Any thread. */
    @Override
    public void peerGone(boolean graceful, long messagesSent, String reason) {
        if (graceful) {
            peerClosed = true;
        } else {
            lostReason = reason;
            peerLost = true;
        }
        loop.wake();
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
        MemorySegment wr = sendWr(slot);
        int length = op == null ? 0 : op.buffer().length();
        if (length == 0) {
            IbvSendWr.sendWithImm(wr, slot, MemorySegment.NULL, 0, imm, 0);
        } else {
            Buffer b = op.buffer();
            MemorySegment sge = sendSge(slot);
            IbvSge.set(sge, b.address(), length, VerbsDevice.lkey(MEMORY.descriptor(b.region())));
            IbvSendWr.sendWithImm(wr, slot, sge, 1, imm, length <= maxInline ? IBV_SEND_INLINE : 0);
        }
        staged(slot, length);
        return POSTED;
    }

    @Override
    public void postReceives(int count) {
        int covered = Math.min(count, surplusBuffers);
        surplusBuffers -= covered;
        receivesToPost += count - covered;
        // Posted now, not with the next poll: the credits for them may leave with the very next send.
        TransportException e = postPendingReceives();
        if (e != null && postFailure == null) {
            postFailure = e;
        }
    }

    @Override
    public int rma(Op op) {
        ensureOpen();
        long key = op.remote().key();
        if ((key & ~0xFFFF_FFFFL) != 0) {
            // No verbs device issued it (rkeys are 32 bits): refused here, as anything the initiator can see is wrong.
            throw new RemoteAccessException(MemoryDomain.REFUSED);
        }
        if (op.kind() == OpKind.ATOMIC) {
            checkAtomic(op);
        }
        int slot = sq.reserve(OPERATION, op);
        if (slot < 0) {
            return NO_RESOURCE;
        }
        MemorySegment wr = sendWr(slot);
        MemorySegment sge = sendSge(slot);
        int rkey = (int) key;
        long bytes = op.bytes();
        switch (op.kind()) {
            case PUT -> {
                long length = op.local().length();
                if (length == 0) {
                    IbvSendWr.rdmaWrite(wr, slot, MemorySegment.NULL, 0, op.remote().address(), rkey, 0);
                } else {
                    IbvSge.set(sge, op.local().segment().address(), length,
                            VerbsDevice.lkey(MEMORY.descriptor(op.local().region())));
                    IbvSendWr.rdmaWrite(wr, slot, sge, 1, op.remote().address(), rkey,
                            length <= maxInline ? IBV_SEND_INLINE : 0);
                }
            }
            case GET -> {
                long length = op.local().length();
                if (length == 0) {
                    IbvSendWr.rdmaRead(wr, slot, MemorySegment.NULL, 0, op.remote().address(), rkey, 0);
                } else {
                    IbvSge.set(sge, op.local().segment().address(), length,
                            VerbsDevice.lkey(MEMORY.descriptor(op.local().region())));
                    IbvSendWr.rdmaRead(wr, slot, sge, 1, op.remote().address(), rkey, 0);
                }
            }
            case ATOMIC -> {
                long addr = op.remote().address();
                switch (op.atomic()) {
                    case COMPARE_SWAP -> encodeCompareSwap(slot, op, op.compare());
                    case SWAP -> {
                        op.wireTag = 0; // the first guess of the word's value; see retireSucceeded
                        encodeCompareSwap(slot, op, 0);
                    }
                    default -> {
                        // ADD is a fetch-and-add whose previous value nobody reads.
                        IbvSge.set(sge, atomicResults.address() + 8L * slot, 8, atomicLkey);
                        IbvSendWr.fetchAdd(wr, slot, sge, addr, rkey, op.operand(), 0);
                    }
                }
            }
            default -> throw new IllegalStateException("not an RMA op: " + op.kind());
        }
        staged(slot, bytes);
        return POSTED;
    }

    /** A compare-and-swap of {@code op} expecting {@code compare}, its previous value landing in the slot's word. */
    private void encodeCompareSwap(int slot, Op op, long compare) {
        MemorySegment sge = sendSge(slot);
        IbvSge.set(sge, atomicResults.address() + 8L * slot, 8, atomicLkey);
        IbvSendWr.compareSwap(sendWr(slot), slot, sge, op.remote().address(), (int) op.remote().key(), compare,
                op.operand(), 0);
    }

    /** Stages the swaps waiting for another attempt, as far as the send queue has room. */
    private int stageSwapRetries() {
        int n = 0;
        Op op;
        while ((op = swapRetries.peekFirst()) != null) {
            int slot = sq.reserve(OPERATION, op);
            if (slot < 0) {
                break;
            }
            swapRetries.pollFirst();
            encodeCompareSwap(slot, op, op.wireTag);
            staged(slot, 8);
            n++;
        }
        return n;
    }

    /** What verbs atomics cannot do fails before posting: other widths, a misaligned target word. */
    private static void checkAtomic(Op op) {
        if (op.width() != 8) {
            throw new OperationNotSupportedException("verbs atomics are 64-bit; " + op.atomic() + " on "
                    + op.width() + " bytes is not offered");
        }
        if ((op.remote().address() & 7) != 0) {
            throw new InvalidRequestException("a 64-bit atomic needs an 8-byte aligned target, got 0x"
                    + Long.toHexString(op.remote().address()));
        }
    }

    @Override
    public int flush(Op op) {
        ensureOpen();
        if (!flushByRead) {
            return DONE; // a device without RDMA reads: completed requests are all there is to wait for
        }
        int slot = sq.reserve(FLUSH, op);
        if (slot < 0) {
            return NO_RESOURCE;
        }
        IbvSendWr.rdmaRead(sendWr(slot), slot, MemorySegment.NULL, 0, 0, 0, 0);
        staged(slot, 0);
        return POSTED;
    }

    @Override
    public int maxBatchBytes() {
        return messageSize;
    }

    private void staged(int slot, long bytes) {
        baseFlags[slot] = IbvSendWr.sendFlags(sendWr(slot));
        slotBytes[slot] = bytes;
    }

    /**
     * Posts every staged request as one chain: each request's own flags plus {@code IBV_SEND_SIGNALED} where the
     * send queue says so. Returns the requests posted; on {@code ENOMEM} the rest stay staged for the next poll, on
     * any other failure the connection is broken.
     */
    private int postStaged(WireEvents events) {
        int posted = postChain();
        if (chainError != 0) {
            int rc = chainError;
            chainError = 0;
            broken(events, new ProviderException("ibv_post_send failed", CompletionErrors.PROVIDER, rc,
                    Errno.describe(rc), null));
        }
        return posted;
    }

    /** The failure of the last {@link #postChain} other than {@code ENOMEM}, or 0. */
    private int chainError;

    private int postChain() {
        int staged = sq.staged();
        if (staged == 0 || qpFailure != null) {
            return 0;
        }
        long largest = 0;
        for (int i = 0; i < staged; i++) {
            int slot = sq.stagedSlot(i);
            MemorySegment wr = sendWr(slot);
            IbvSendWr.setSendFlags(wr, baseFlags[slot] | (sq.signalled(i) ? IBV_SEND_SIGNALED : 0));
            IbvSendWr.setNext(wr, i + 1 < staged ? sendWr(sq.stagedSlot(i + 1)) : MemorySegment.NULL);
            largest = Math.max(largest, slotBytes[slot]);
        }
        MemorySegment first = sendWr(sq.stagedSlot(0));
        int rc = IbvQp.postSend(qpSegment, first, badWr);
        long dueBy = loop.coarseNanos() + writeTimeoutNanos + largest * NANOS_PER_BYTE;
        if (rc == 0) {
            sq.markPosted(staged, dueBy);
            return staged;
        }
        int posted = chainIndex(badWr.get(ValueLayout.ADDRESS, 0).address(), staged);
        sq.markPosted(posted, dueBy);
        if (rc != Errno.ENOMEM) {
            chainError = rc;
        }
        return posted;
    }

    /** The index in the staged chain of the request at {@code address} (the first one not posted). */
    private int chainIndex(long address, int staged) {
        for (int i = 0; i < staged; i++) {
            if (sendWr(sq.stagedSlot(i)).address() == address) {
                return i;
            }
        }
        return 0;
    }

    /**
     * Posts the receive buffers owed (protocol-only ones first) as one chain, as many as the receive queue takes.
     * Returns the failure of a post other than {@code ENOMEM} (which leaves them owed for the next poll), or null.
     */
    private TransportException postPendingReceives() {
        int want = Math.min(controlToPost + receivesToPost, rq.free());
        if (want <= 0 || qpFailure != null) {
            return null;
        }
        for (int i = 0; i < want; i++) {
            int slot = rq.slotAfter(i);
            Buffer b = memory.allocate(messageSize);
            receiving[i] = b;
            MemorySegment sge = recvSge(slot);
            IbvSge.set(sge, b.address(), messageSize, VerbsDevice.lkey(MEMORY.descriptor(b.region())));
            IbvRecvWr.set(recvWr(slot), ReceiveRing.wrId(slot), i + 1 < want ? recvWr(rq.slotAfter(i + 1))
                    : MemorySegment.NULL, sge, 1);
        }
        int rc = IbvQp.postRecv(qpSegment, recvWr(rq.slotAfter(0)), badWr);
        int posted = want;
        if (rc != 0) {
            long bad = badWr.get(ValueLayout.ADDRESS, 0).address();
            posted = 0;
            while (posted < want && recvWr(rq.slotAfter(posted)).address() != bad) {
                posted++;
            }
        }
        for (int i = 0; i < want; i++) {
            if (i < posted) {
                rq.add(receiving[i]);
            } else {
                receiving[i].release();
            }
            receiving[i] = null;
        }
        int control = Math.min(posted, controlToPost);
        controlToPost -= control;
        receivesToPost -= posted - control;
        if (rc != 0 && rc != Errno.ENOMEM) {
            return new ProviderException("ibv_post_recv failed", CompletionErrors.PROVIDER, rc, Errno.describe(rc),
                    null);
        }
        return null;
    }

    // ---------------------------------------------------------------------------------------------- reaping

    @Override
    public int poll(WireEvents events) {
        if (closed) {
            return drainAfterClose(events);
        }
        if (!swapRetries.isEmpty() && qpFailure == null) {
            stageSwapRetries();
        }
        int work = postStaged(events);
        if (closed) {
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
            broken(events, new ProviderException("ibv_poll_cq failed", CompletionErrors.PROVIDER, -n, null, null));
            return work + 1;
        }
        for (int i = 0; i < n && !closed; i++) {
            complete(events, i);
        }
        work += n;
        if (closed) {
            return work;
        }
        TransportException failure = postFailure != null ? postFailure : postPendingReceives();
        if (failure != null) {
            postFailure = null;
            broken(events, failure);
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
                long value = op.kind() == OpKind.ATOMIC && op.atomic() != AtomicOp.ADD
                        ? atomicResults.segment().get(ValueLayout.JAVA_LONG, 8L * slot) : 0;
                if (op.kind() == OpKind.ATOMIC && op.atomic() == AtomicOp.SWAP && value != op.wireTag) {
                    op.wireTag = value; // the word held something else: try again expecting it
                    swapRetries.addLast(op);
                    return;
                }
                retireEvents.completed(op, value);
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
                broken(events, new ProviderException("completion for send slot " + slot + " that holds no signalled "
                        + "request", CompletionErrors.PROVIDER, 0, null, null));
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
        TransportException cause = error instanceof RemoteAccessException
                ? new ConnectionLostException("the connection's queue pair went to the error state after a refused "
                        + opKind.tag + "; the endpoint is closed", CompletionErrors.PROVIDER, status,
                        CompletionErrors.text(status, vendorErr), null)
                : error instanceof ConnectionLostException ? error
                : new ConnectionLostException("the connection's queue pair went to the error state after a failed "
                        + opKind.tag, CompletionErrors.PROVIDER, status, CompletionErrors.text(status, vendorErr),
                        error);
        failQueuePair(events, cause);
    }

    private void failQueuePair(WireEvents events, TransportException cause) {
        if (qpFailure == null) {
            qpFailure = cause;
        }
        Op retry;
        while ((retry = swapRetries.pollFirst()) != null) {
            events.failed(retry, cause);
        }
        if (!closed) {
            broken(events, cause);
        }
    }

    private void received(WireEvents events, int slot, int status, int i) {
        if (!rq.isOldest(slot)) {
            broken(events, new ProviderException("receive completion out of posting order (slot " + slot + ")",
                    CompletionErrors.PROVIDER, 0, null, null));
            return;
        }
        Buffer b = rq.takeOldest();
        if (status != IBV_WC_SUCCESS) {
            b.release();
            if (CompletionErrors.isFlush(status)) {
                if (qpFailure == null && pendingLoss == null) {
                    // Our receives are flushed: the peer disconnected, or the queue pair failed. A graceful close
                    // says goodbye on the bootstrap channel within moments; otherwise it is a loss.
                    pendingLoss = lossCause();
                    lossNoticed = loop.coarseNanos();
                }
                return;
            }
            failQueuePair(events, CompletionErrors.forReceive(status, IbvWc.vendorErr(wcs, i)));
            return;
        }
        if ((IbvWc.wcFlags(wcs, i) & IBV_WC_WITH_IMM) == 0) {
            b.release();
            broken(events, new CreditProtocolException("the peer sent a message without a control word"));
            return;
        }
        long word = ImmediateWord.decode(IbvWc.immData(wcs, i));
        int type = ControlWord.type(word);
        if (type == ControlWord.DATA || type == ControlWord.BATCH) {
            b.length((int) IbvWc.byteLen(wcs, i));
            if (type == ControlWord.BATCH) {
                int k = BatchFraming.count(b.capacitySegment(), b.length());
                if (k > 1) {
                    surplusBuffers += k - 1;
                }
            }
            events.received(word, b);
        } else {
            b.release();
            controlToPost++;
            events.received(word, null);
        }
    }

    /**
     * The peer's fate from the bootstrap channel and rdma_cm, and operations stalled past the write timeout. Returns
     * 1 when something was reported.
     */
    private int checkPeer(WireEvents events) {
        long now = loop.coarseNanos();
        if (!peerEventReported && (peerClosed || peerLost)) {
            peerEventReported = true;
            if (peerClosed) {
                events.received(ControlWord.encode(ControlWord.CLOSE, 0), null);
            } else {
                broken(events, new ConnectionLostException("peer at " + remoteAddress + " is gone: " + lostReason,
                        CompletionErrors.PROVIDER, 0, null, null));
            }
            return 1;
        }
        if (cmDisconnected && pendingLoss == null && !peerClosed) {
            pendingLoss = new ConnectionLostException("rdma_cm reported the connection to " + remoteAddress
                    + " disconnected");
            lossNoticed = now;
        }
        if (pendingLoss != null && !peerClosed && now - lossNoticed > LOSS_GRACE_NANOS) {
            broken(events, pendingLoss);
            return 1;
        }
        if (now - sq.oldestDueBy() > 0) {
            broken(events, new ConnectionLostException("an operation to " + remoteAddress + " has not completed "
                    + "within " + java.time.Duration.ofNanos(writeTimeoutNanos) + " plus a second per MiB it moves "
                    + "(liveness.writeTimeout)", CompletionErrors.PROVIDER, 0, null, null));
            return 1;
        }
        return 0;
    }

    /**
     * Waiter, before the polling thread sleeps: arms the CQ and polls it once more. Returns true when the thread must
     * not sleep: completions arrived (kept for the next {@link #poll}), or requests wait to be posted.
     */
    boolean armAndCheck() {
        if (closed || stashed > 0 || sq.staged() > 0 || !swapRetries.isEmpty() || peerClosed || peerLost
                || cmDisconnected) {
            return !closed;
        }
        IbvCq.reqNotify(cq, 0);
        int n = IbvCq.poll(cq, maxPoll, wcs);
        if (n != 0) {
            stashed = Math.max(n, 0);
            return true;
        }
        return false;
    }

    /** Tells the engine the connection is broken; the close that follows aborts the bootstrap channel. */
    private void broken(WireEvents events, TransportException cause) {
        brokenReported = true;
        if (breakCause == null) {
            breakCause = cause;
        }
        events.broken(cause);
    }

    private TransportException lossCause() {
        if (qpFailure != null) {
            return qpFailure;
        }
        if (breakCause != null) {
            return breakCause;
        }
        if (closed) {
            return new ResourceClosedException("endpoint closed before the operation completed");
        }
        return new ConnectionLostException("the connection to " + remoteAddress + " went to the error state");
    }

    private TransportException closedCause() {
        return breakCause != null ? breakCause
                : new ResourceClosedException("endpoint closed before the operation completed");
    }

    // ---------------------------------------------------------------------------------------------- teardown

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            beforeClose.run();
            if (!brokenReported) {
                // What the engine handed over last (its close word among it) leaves before the queue pair goes: best
                // effort, the goodbye on the bootstrap connection says the same should the queue pair not carry it.
                postChain();
            }
        } finally { // whatever that threw: a close stopped half-way would keep the queue pair and connection for good
            qp.destroy(); // from here the device touches none of our buffers: drainAfterClose may release them
            LivenessChannel c = channel;
            if (c != null && brokenReported) {
                c.abort(); // the peer sees its bootstrap connection end without a goodbye: a failure
            } else if (c != null) {
                c.goodbye(-1); // not counted: a goodbye may overtake the last messages on the queue pair
            }
        }
    }

    /**
     * Set-up thread: lets go of a wire whose connection was never established (the endpoint never started): the
     * queue pair first, then the buffers it held.
     */
    void discard() {
        closed = true;
        qp.destroy();
        releaseBuffers();
    }

    /** After close: every request still queued is reported failed, every posted receive buffer released. */
    private int drainAfterClose(WireEvents events) {
        if (drained) {
            return 0;
        }
        drained = true;
        retireEvents = events;
        retireError = closedCause();
        int n = sq.drain(failed);
        Op retry;
        while ((retry = swapRetries.pollFirst()) != null) {
            events.failed(retry, retireError);
            n++;
        }
        n += releaseBuffers();
        return n;
    }

    private int releaseBuffers() {
        int n = 0;
        while (rq.posted() > 0) {
            rq.takeOldest().release();
            n++;
        }
        atomicResults.close();
        arena.close();
        return n;
    }

    private void ensureOpen() {
        if (closed) {
            throw new ResourceClosedException("endpoint is closed");
        }
        if (qpFailure != null) {
            throw qpFailure;
        }
    }

    private static MemorySegment[] slices(MemorySegment array, long size, int count) {
        MemorySegment[] s = new MemorySegment[count];
        for (int i = 0; i < count; i++) {
            s[i] = array.asSlice(size * i, size);
        }
        return s;
    }

    private MemorySegment sendWr(int slot) {
        return sendWrs[slot];
    }

    private MemorySegment sendSge(int slot) {
        return sendSges[slot];
    }

    private MemorySegment recvWr(int slot) {
        return recvWrs[slot];
    }

    private MemorySegment recvSge(int slot) {
        return recvSges[slot];
    }

    @Override
    public Capabilities capabilities() {
        return caps;
    }

    @Override
    public String remoteAddress() {
        return remoteAddress;
    }

    @Override
    public String toString() {
        return "verbs wire to " + remoteAddress;
    }
}
