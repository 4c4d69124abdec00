package dev.rivulet.rdma.fabric;

import dev.rivulet.core.internal.MemoryAccess;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.Capabilities;
import dev.rivulet.core.admission.ReceiveBudget;
import dev.rivulet.core.engine.AtomicOp;
import dev.rivulet.core.engine.ControlWord;
import dev.rivulet.core.engine.Op;
import dev.rivulet.core.engine.Wire;
import dev.rivulet.core.engine.WireEvents;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.ProviderException;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.framing.BatchFraming;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.liveness.LivenessSettings;
import dev.rivulet.core.loop.ProgressLoop;
import dev.rivulet.rdma.fabric.sys.FiCqDataEntry;
import dev.rivulet.rdma.fabric.sys.FiCqErrEntry;
import dev.rivulet.rdma.fabric.sys.FiMsgRma;
import dev.rivulet.rdma.fabric.sys.FiRmaIov;
import dev.rivulet.core.sys.Iovec;
import dev.rivulet.rdma.fabric.sys.FidCq;
import dev.rivulet.rdma.fabric.sys.FidEp;
import dev.rivulet.rdma.fabric.sys.Libfabric;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static dev.rivulet.rdma.fabric.sys.FiConstants.*;

/**
 * One Rivulet endpoint on a libfabric RDM endpoint of its own: the engine's {@link Wire} in terms of
 * {@code fi_senddata}, {@code fi_recv}, {@code fi_write}, {@code fi_read}, the atomic calls and {@code fi_cq_read}.
 *
 * <ul>
 *   <li><b>Control words</b> travel as remote CQ data: data messages with {@code fi_senddata}, protocol-only words
 *       ({@code CREDIT}, {@code CLOSE}) as zero-byte {@code fi_senddata} with a context of their own (see
 *       {@link #sendWord}).</li>
 *   <li><b>Receives</b>: every posted buffer is {@code eagerSize} bytes, since untagged receives match in order
 *       whatever arrives. The engine's data slots plus {@link #CONTROL_SLOTS} extra buffers for protocol-only words
 *       are kept posted; a control word's buffer is reposted at once.</li>
 *   <li><b>NO_RESOURCE</b>: {@code -FI_EAGAIN} from a post, or no free context slot.</li>
 *   <li><b>Errors</b>: {@code fi_cq_readerr} entries become typed exceptions with {@code fi_strerror} and the
 *       provider's own text.</li>
 *   <li><b>Strangers</b>: with {@code FI_SOURCE}, a receive that completes with another sender than the peer's
 *       {@code fi_addr_t} is dropped unread and its buffer posted again, so nothing a stranger sends reaches the
 *       engine: no message, no credit, no close. A receive the provider truncated held a message larger than the
 *       agreed eager size, which the peer never sends: dropped the same way, not a reason to end the endpoint.</li>
 * </ul>
 * Progress thread only.
 */
final class FabricWire implements Wire {

    private static final MemoryAccess MEMORY = Internals.memory();
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(FabricWire.class);

    /** Receive buffers kept posted for protocol-only words on top of the engine's data slots. */
    static final int CONTROL_SLOTS = 8;
    private static final int CQ_BATCH = 64;
    /** Per context slot: operand, compare and result words of an atomic, in registered memory. */
    private static final int ATOMIC_SCRATCH = 24;
    /** Per context slot: an fi_msg_rma with its iovec, rma_iov and desc, for writes posted with flags. */
    private static final long MSG_SCRATCH = 128;
    /**
     * Wire-internal words of the rendezvous protocol for messages larger than the eager size. They never reach the
     * engine: the receiver turns a completed rendezvous into an ordinary {@code DATA} arrival.
     * <ul>
     *   <li>{@code RNDV_REQUEST} (type 5, credits as for DATA): payload {@code u64 address | u64 length | u64 key |
     *       u32 token} naming the sender's message, registered for remote read only for this message;</li>
     *   <li>{@code RNDV_DONE} (type 6, the credits field carries the token): the receiver has read the message, the
     *       sender may complete the send and deregister the window.</li>
     * </ul>
     */
    static final int RNDV_REQUEST = 5;
    static final int RNDV_DONE = 6;
    private static final int RTS_BYTES = 28;

    /** {@code arrivedLen} of a receive that held a stranger's message: dropped in its turn, its buffer replaced. */
    private static final long STRANGER = -2;

    private final FabricDomain fabric;
    private final ProgressLoop loop;
    /** An operation the provider has not completed after this long means the peer stopped making progress. */
    private final long writeTimeoutNanos;
    private final long peerTimeoutNanos;
    private final long checkEveryNanos;
    private long lastStallCheck;
    /**
     * When each context slot's operation must have completed (coarse clock): the write timeout, plus a second per MiB
     * it moves, since the provider reports no progress inside one operation and a large transfer over a slow link is
     * not a stalled peer.
     */
    private long[] dueBy;
    private final MemoryDomain memory;
    private final Capabilities caps;
    private final String remoteAddress;
    private final FabricDomain.EndpointHandles handles;
    private final MemorySegment ep;
    private final MemorySegment cq;
    private final long peer;
    private final int eagerSize;
    private final Arena arena = Arena.ofShared();
    private final ContextSlots slots;
    private final MemorySegment entries;
    /** The sender of each entry of the last CQ batch ({@code FI_SOURCE}). */
    private final MemorySegment sources;
    /** Messages dropped because they did not come from the peer. */
    private long strangersDropped;
    private final MemorySegment errEntry;
    private final MemoryRegion scratch;
    private final MemorySegment[] msgs;
    private final MemorySegment[] iovs;
    private final MemorySegment[] rmaIovs;
    private final MemorySegment[] descs;
    /** What runs once the wire is closed. */
    interface Closed {
        /**
         * The wire is closed: in order ({@code orderly}, after its sends delivered {@code messagesSent} messages to
         * the peer's receives), or because the connection broke.
         */
        void closed(boolean orderly, long messagesSent);
    }

    private final Closed onClose;
    /** Messages this side's sends delivered to the peer's receives (counted as their sends completed). */
    private long messagesSent;
    /** Messages from the peer that completed a receive here. */
    private long messagesArrived;
    /** How many messages the peer says it sent, from its goodbye (-1: it did not say), and when it was heard. */
    private volatile long goodbyeCount = -1;
    private long goodbyeHeard;
    /** Whether this wire told the engine the connection is broken (the peer then sees an abort, not a goodbye). */
    private boolean brokenReported;
    /** A connection error an operation reported, and when: the endpoint breaks unless the peer's goodbye follows. */
    private TransportException pendingLoss;
    private long lossNoticed;
    /** One-sided operations that failed with ECANCELED, waiting to learn whether the peer is still there. */
    private final java.util.ArrayDeque<Op> heldRefusals = new java.util.ArrayDeque<>();
    private final java.util.ArrayDeque<TransportException> heldErrors = new java.util.ArrayDeque<>();
    private long refusalSeen;
    /** How long such an operation waits for the bootstrap channel to report a lost peer before it is a refusal. */
    private static final long REFUSAL_GRACE_NANOS = 250_000_000L;
    /** How long a lost operation waits for the peer's goodbye before it breaks the endpoint. */
    private static final long LOSS_GRACE_NANOS = 500_000_000L;
    private TransportException breakCause;
    private Runnable beforeClose = () -> { };
    private int receivesToPost;
    /*
     * Receives complete out of order on providers with comp_order FI_ORDER_NONE (tcp;ofi_rxm finishes a large
     * rendezvous message after smaller ones posted behind it), but buffers are matched in posting order (msg_order
     * SAS), so buffer k holds message k. Completions are therefore parked per slot and delivered strictly in
     * posting order: a ring of posted receive slots, plus each slot's completed length and control word.
     */
    private final int[] postedOrder;
    private int orderHead;
    private int orderCount;
    private final boolean[] arrived;
    private final long[] arrivedLen;
    private final long[] arrivedWord;
    /** Sender side: the temporary read-only registration of each rendezvous message, by its op's slot. */
    private final Grant[] rndvWindows;
    /** Receiver side: the receive slot at the head of the order whose rendezvous read is running, or -1. */
    private int readingSlot = -1;
    /** A done word whose inject must be retried. */
    private long pendingDone;
    /**
     * The rendezvous read in progress: the buffer it fills, how much of the message is in, what the current read
     * asks for, and whether the next read waits for a free slot or the provider (retried on the next poll). A
     * message the peer's receive budget covers is read in one go; otherwise in pieces into a buffer that doubles as
     * they arrive, so a peer that stalls the read holds little of this side's memory.
     */
    private Buffer readInto;
    private long readDone;
    private long readChunk;
    private long readAddress;
    private long readKey;
    private long readLength;
    private boolean readChunkPending;
    /** What the peer may make this side commit ahead of its bytes (rendezvous reads, posted eager buffers). */
    private final ReceiveBudget.Connection budget;
    /** The first piece of a rendezvous read beyond the peer's budget (see {@link #readInto}). */
    private static final int FIRST_PIECE = 64 << 10;
    /** Eager buffers a peer gets posted however little its budget covers: enough for a message and a credit. */
    private static final int MIN_WINDOW = 4;
    /**
     * Eager buffers this side posts for a peer beyond what its byte allowance covers: from {@link #MIN_WINDOW}, one
     * more per message it delivered (as TCP's slow start opens its window), each held from the listener's total.
     */
    private int window = MIN_WINDOW;
    /**
     * Data buffers posted beyond the credits outstanding. A coalesced frame of k messages uses k credits but one
     * buffer, leaving k-1 buffers that already cover future grants; without this count every frame would leave
     * extra buffers posted until they used up every context slot.
     */
    private int surplusBuffers;
    private int controlToPost = CONTROL_SLOTS;
    private volatile boolean peerClosed;
    private volatile String lostReason;
    private volatile boolean peerLost;
    private boolean peerEventReported;
    private boolean closed;
    private boolean drainedAfterClose;

    FabricWire(FabricDomain fabric, MemoryDomain memory, Capabilities caps, FabricDomain.EndpointHandles handles,
               long peer, int eagerSize, String remoteAddress, Closed onClose,
               ProgressLoop loop, LivenessSettings liveness, ReceiveBudget.Connection budget) {
        this.fabric = fabric;
        this.budget = budget;
        this.loop = loop;
        this.writeTimeoutNanos = liveness.writeTimeout().toNanos();
        this.peerTimeoutNanos = liveness.peerTimeout().toNanos();
        this.checkEveryNanos = Math.max(1_000_000L, writeTimeoutNanos / 8);
        this.memory = memory;
        this.caps = caps;
        this.ep = handles.ep();
        this.cq = handles.cq();
        this.peer = peer;
        this.eagerSize = eagerSize;
        this.remoteAddress = remoteAddress;
        this.onClose = onClose;
        this.handles = handles;
        int slotCount = caps.sendQueueDepth() + caps.receiveQueueDepth() + CONTROL_SLOTS + 16;
        this.slots = new ContextSlots(arena, slotCount);
        this.dueBy = new long[slotCount];
        this.postedOrder = new int[slotCount];
        this.arrived = new boolean[slotCount];
        this.arrivedLen = new long[slotCount];
        this.arrivedWord = new long[slotCount];
        this.rndvWindows = new Grant[slotCount];
        this.entries = FiCqDataEntry.allocateArray(arena, CQ_BATCH);
        this.sources = arena.allocate(ValueLayout.JAVA_LONG, CQ_BATCH);
        this.errEntry = FiCqErrEntry.allocate(arena);
        this.scratch = memory.register(arena.allocate((long) ATOMIC_SCRATCH * slotCount, 64), Access.LOCAL);
        MemorySegment msgScratch = arena.allocate(MSG_SCRATCH * slotCount, 64);
        // Each slot's fi_msg_rma, iovec, rma_iov and desc views, made once so a put allocates none of them.
        this.msgs = new MemorySegment[slotCount];
        this.iovs = new MemorySegment[slotCount];
        this.rmaIovs = new MemorySegment[slotCount];
        this.descs = new MemorySegment[slotCount];
        for (int i = 0; i < slotCount; i++) {
            MemorySegment m = msgScratch.asSlice(MSG_SCRATCH * i, MSG_SCRATCH);
            msgs[i] = m.asSlice(0, FiMsgRma.SIZE);
            iovs[i] = m.asSlice(FiMsgRma.SIZE, Iovec.SIZE);
            rmaIovs[i] = m.asSlice(FiMsgRma.SIZE + Iovec.SIZE, FiRmaIov.SIZE);
            descs[i] = m.asSlice(FiMsgRma.SIZE + Iovec.SIZE + FiRmaIov.SIZE, 8);
        }
    }

    /** Runs first in {@link #close()}, before the queue is closed (e.g. to take it out of the loop's epoll set). */
    void beforeClose(Runnable r) {
        this.beforeClose = r;
    }

    /** The bootstrap channel saw the peer say goodbye (graceful) or vanish. */
    void peerGone(boolean graceful, long sentByPeer, String reason) {
        if (graceful) {
            goodbyeCount = sentByPeer;
            peerClosed = true;
        } else {
            lostReason = reason;
            peerLost = true;
        }
    }

    // ---------------------------------------------------------------------------------------------- posting

    @Override
    public int send(long controlWord, Op op) {
        if (connectionGone()) {
            return NO_RESOURCE;
        }
        if (op == null) {
            long rc = sendWord(controlWord, ContextSlots.CONTROL);
            if (rc == -FI_EAGAIN) {
                return NO_RESOURCE;
            }
            checkPost("fi_senddata", rc);
            return POSTED;
        }
        Buffer b = op.buffer();
        if (b.length() > eagerSize) {
            return sendRendezvous(controlWord, op);
        }
        int slot = slots.acquire(ContextSlots.OPERATION, op);
        if (slot < 0) {
            return NO_RESOURCE;
        }
        dueBy[slot] = dueBy(b.length());
        long rc = FidEp.senddata(ep, b.capacitySegment(), b.length(), MEMORY.descriptor(b.region()), controlWord, peer,
                slots.context(slot));
        return posted(slot, rc, "fi_senddata");
    }

    /**
     * Sends a zero-byte message carrying only {@code word}, with a context of ours ({@code kind} CONTROL or DONE_WORD)
     * rather than as an inject: rxm on libfabric 1.17 crashes (a NULL context dereferenced in its completion error
     * handling) when it closes a connection whose queue still holds an inject, which is exactly the state a peer
     * lost mid-stream leaves behind. Returns the provider's code; -FI_EAGAIN also when no context slot is free.
     */
    private long sendWord(long word, byte kind) {
        int slot = pendingLoss == null ? slots.acquire(kind, null) : -1;
        if (slot < 0) {
            return -FI_EAGAIN;
        }
        dueBy[slot] = dueBy(0);
        long rc = FidEp.senddata(ep, MemorySegment.NULL, 0, MemorySegment.NULL, word, peer, slots.context(slot));
        if (rc != 0) {
            slots.release(slot);
        }
        return rc;
    }

    /**
     * A message larger than the receiver's buffers: exposes exactly its bytes for remote read under a fresh key and
     * sends a small request naming them; the receiver pulls the message with {@code fi_read} and answers
     * {@code RNDV_DONE}, which completes the send.
     */
    private int sendRendezvous(long controlWord, Op op) {
        if (slots.capacity() - slots.inUse() < 2) {
            return NO_RESOURCE;
        }
        Buffer b = op.buffer();
        Grant window = MEMORY.grantForTransfer(memory, b.region().slice(b.regionOffset(), b.length()),
                java.util.Set.of(Access.REMOTE_READ), this);
        Buffer rts = memory.allocate(RTS_BYTES);
        int wait = slots.acquire(ContextSlots.RNDV_WAIT, op);
        int sendSlot = slots.acquire(ContextSlots.RTS_SEND, rts);
        dueBy[wait] = dueBy(b.length());
        dueBy[sendSlot] = dueBy[wait];
        MemorySegment m = rts.capacitySegment();
        m.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, window.remote().address());
        m.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, b.length());
        m.set(ValueLayout.JAVA_LONG_UNALIGNED, 16, window.remote().key());
        m.set(ValueLayout.JAVA_INT_UNALIGNED, 24, wait);
        long word = ControlWord.credits(controlWord) << 32 | RNDV_REQUEST;
        long rc = FidEp.senddata(ep, m, RTS_BYTES, MEMORY.descriptor(rts.region()), word, peer,
                slots.context(sendSlot));
        if (rc != 0) {
            slots.release(sendSlot);
            slots.release(wait);
            rts.release();
            window.close();
            if (rc == -FI_EAGAIN) {
                return NO_RESOURCE;
            }
            throw providerError("fi_senddata(rendezvous)", rc);
        }
        rndvWindows[wait] = window;
        return POSTED;
    }

    /** The receiver read a rendezvous message: the send is complete, its window closes. */
    private void rendezvousDone(WireEvents events, int token) {
        if (token < 0 || token >= slots.capacity() || slots.kind(token) != ContextSlots.RNDV_WAIT) {
            broken(events, new dev.rivulet.core.error.CreditProtocolException("rendezvous done for unknown token "
                    + token));
            return;
        }
        Op op = (Op) slots.owner(token);
        slots.release(token);
        rndvWindows[token].close();
        rndvWindows[token] = null;
        events.completed(op, 0);
    }

    /**
     * Every posted receive holds an eager buffer, so a peer that has not authenticated gets as many posted as its
     * byte allowance covers, or its {@link #window}, whichever is more.
     */
    @Override
    public int receiveWindow() {
        return (int) Math.min(Integer.MAX_VALUE, Math.max(window, budget.allowance() / eagerSize));
    }

    /**
     * {@code messages} arrived in full in {@code bytes}: the peer has earned that much allowance, and one more eager
     * buffer per message.
     */
    private void delivered(long bytes, int messages) {
        budget.delivered(bytes);
        for (int i = 0; i < messages && window < caps.receiveQueueDepth()
                && budget.allowance() / eagerSize < caps.receiveQueueDepth() && budget.hold(eagerSize); i++) {
            window++;
        }
    }

    @Override
    public void postReceives(int count) {
        int covered = Math.min(count, surplusBuffers);
        surplusBuffers -= covered;
        receivesToPost += count - covered;
        postPendingReceives();
    }

    /** Posts the receives owed, stopping at the first EAGAIN (retried on the next poll). */
    private void postPendingReceives() {
        while (controlToPost > 0 && postOneReceive()) {
            controlToPost--;
        }
        while (receivesToPost > 0 && postOneReceive()) {
            receivesToPost--;
        }
    }

    private boolean postOneReceive() {
        if (closed) {
            return false;
        }
        Buffer b = memory.allocate(eagerSize);
        int slot = slots.acquire(ContextSlots.RECEIVE, b);
        if (slot < 0) {
            b.release();
            return false;
        }
        // For any sender: a stranger's message is dropped by its source (FabricDomain#reportsSource).
        long rc = FidEp.recv(ep, b.capacitySegment(), eagerSize, MEMORY.descriptor(b.region()), FI_ADDR_UNSPEC,
                slots.context(slot));
        if (rc == 0) {
            postedOrder[(orderHead + orderCount++) % postedOrder.length] = slot;
            return true;
        }
        slots.release(slot);
        b.release();
        if (rc == -FI_EAGAIN) {
            return false;
        }
        throw providerError("fi_recv", rc);
    }

    @Override
    public int rma(Op op) {
        if (connectionGone()) {
            return NO_RESOURCE;
        }
        int slot = slots.acquire(ContextSlots.OPERATION, op);
        if (slot < 0) {
            return NO_RESOURCE;
        }
        dueBy[slot] = dueBy(op.bytes());
        MemorySegment ctx = slots.context(slot);
        long rc;
        String call;
        switch (op.kind()) {
            case PUT -> {
                call = "fi_writemsg";
                rc = fabric.checksRemoteKeys ? writeDeliveryComplete(op, slot, ctx)
                        : FidEp.write(ep, op.local().segment(), op.local().length(),
                                MEMORY.descriptor(op.local().region()),
                        peer, op.remote().address(), op.remote().key(), ctx);
            }
            case GET -> {
                call = "fi_read";
                rc = FidEp.read(ep, op.local().segment(), op.local().length(), MEMORY.descriptor(op.local().region()),
                        peer, op.remote().address(), op.remote().key(), ctx);
            }
            case ATOMIC -> {
                call = "fi_atomic";
                rc = postAtomic(op, slot, ctx);
            }
            default -> throw new IllegalStateException("not an RMA op: " + op.kind());
        }
        return posted(slot, rc, call);
    }

    /**
     * A put that completes only once the data is at the target: it makes flush mean remote completion, and it is
     * the only way the tcp provider reports a rejected key instead of dropping the data silently.
     */
    private long writeDeliveryComplete(Op op, int slot, MemorySegment ctx) {
        MemorySegment msg = msgs[slot];
        MemorySegment iov = iovs[slot];
        MemorySegment rmaIov = rmaIovs[slot];
        MemorySegment desc = descs[slot];
        Iovec.setBase(iov, op.local().segment());
        Iovec.setLength(iov, op.local().length());
        FiRmaIov.setAddr(rmaIov, op.remote().address());
        FiRmaIov.setLen(rmaIov, op.local().length());
        FiRmaIov.setKey(rmaIov, op.remote().key());
        desc.set(ValueLayout.ADDRESS, 0, MEMORY.descriptor(op.local().region()));
        FiMsgRma.setMsgIov(msg, iov);
        FiMsgRma.setDesc(msg, desc);
        FiMsgRma.setIovCount(msg, 1);
        FiMsgRma.setAddr(msg, peer);
        FiMsgRma.setRmaIov(msg, rmaIov);
        FiMsgRma.setRmaIovCount(msg, 1);
        FiMsgRma.setContext(msg, ctx);
        FiMsgRma.setData(msg, 0);
        return FidEp.writemsg(ep, msg, FI_COMPLETION | FI_DELIVERY_COMPLETE);
    }

    private long postAtomic(Op op, int slot, MemorySegment ctx) {
        MemorySegment s = scratch.segment().asSlice((long) ATOMIC_SCRATCH * slot, ATOMIC_SCRATCH);
        MemorySegment operand = s.asSlice(0, 8);
        MemorySegment compare = s.asSlice(8, 8);
        MemorySegment result = s.asSlice(16, 8);
        MemorySegment desc = MEMORY.descriptor(scratch);
        int dt = op.width() == 8 ? FI_UINT64 : FI_UINT32;
        if (op.width() == 8) {
            operand.set(ValueLayout.JAVA_LONG, 0, op.operand());
            compare.set(ValueLayout.JAVA_LONG, 0, op.compare());
        } else {
            operand.set(ValueLayout.JAVA_INT, 0, (int) op.operand());
            compare.set(ValueLayout.JAVA_INT, 0, (int) op.compare());
        }
        long addr = op.remote().address();
        long key = op.remote().key();
        return switch (op.atomic()) {
            case ADD -> FidEp.atomic(ep, operand, 1, desc, peer, addr, key, dt, FI_SUM, ctx);
            case FETCH_ADD -> FidEp.fetchAtomic(ep, operand, 1, desc, result, desc, peer, addr, key, dt, FI_SUM, ctx);
            case SWAP -> FidEp.fetchAtomic(ep, operand, 1, desc, result, desc, peer, addr, key, dt, FI_ATOMIC_WRITE,
                    ctx);
            case COMPARE_SWAP -> FidEp.compareAtomic(ep, operand, 1, desc, compare, desc, result, desc, peer, addr,
                    key, dt, FI_CSWAP, ctx);
        };
    }

    private long atomicResult(Op op, int slot) {
        if (op.atomic() == AtomicOp.ADD) {
            return 0;
        }
        long off = (long) ATOMIC_SCRATCH * slot + 16;
        return op.width() == 8 ? scratch.segment().get(ValueLayout.JAVA_LONG, off)
                : scratch.segment().get(ValueLayout.JAVA_INT, off);
    }

    private int posted(int slot, long rc, String call) {
        if (rc == 0) {
            return POSTED;
        }
        slots.release(slot);
        if (rc == -FI_EAGAIN) {
            return NO_RESOURCE;
        }
        throw providerError(call, rc);
    }

    @Override
    public int flush(Op op) {
        // Every operation before the flush has completed (the engine waits for that), and this transport asks
        // for FI_DELIVERY_COMPLETE where the provider's plain completion does not already imply delivery.
        return DONE;
    }

    @Override
    public int maxBatchBytes() {
        return eagerSize;
    }

    // ---------------------------------------------------------------------------------------------- reaping

    @Override
    public int poll(WireEvents events) {
        if (closed) {
            return drainAfterClose(events);
        }
        int work = 0;
        boolean withSource = fabric.reportsSource;
        for (;;) {
            long n = withSource ? FidCq.readfrom(cq, entries, CQ_BATCH, sources) : FidCq.read(cq, entries, CQ_BATCH);
            if (n > 0) {
                for (int i = 0; i < n && !closed; i++) {
                    complete(events, FiCqDataEntry.opContextAddress(entries, i), FiCqDataEntry.len(entries, i),
                            FiCqDataEntry.data(entries, i),
                            withSource ? sources.getAtIndex(ValueLayout.JAVA_LONG, i) : peer);
                }
                work += (int) n;
                if (n < CQ_BATCH || closed) {
                    break; // closed by a callback: the queue is gone, the close already drained what was left
                }
            } else if (n == -FI_EAVAIL) {
                readError(events);
                work++;
                if (closed) {
                    return work;
                }
            } else if (n == -FI_EAGAIN) {
                break;
            } else {
                broken(events, providerError("fi_cq_read", n));
                return work + 1;
            }
        }
        if (closed) {
            return work; // a callback closed the endpoint: its queue and endpoint are gone
        }
        if (checkStalls(events)) {
            return work + 1;
        }
        if (receivesToPost > 0 || controlToPost > 0) {
            postPendingReceives();
        }
        if (pendingDone != 0 && sendWord(pendingDone, ContextSlots.DONE_WORD) == 0) {
            pendingDone = 0;
        }
        if (readChunkPending) {
            postReadChunk(events); // the next piece of a rendezvous read found no resources last time
        } else if (readingSlot < 0 && orderCount > 0) {
            deliverInOrder(events); // a rendezvous read that found no resources last time
        }
        if (!heldRefusals.isEmpty() && (peerLost || peerClosed
                || loop.coarseNanos() - refusalSeen > REFUSAL_GRACE_NANOS)) {
            if (settleHeldRefusals(events)) {
                return work + 1;
            }
        }
        if (pendingLoss != null && !peerClosed && !peerEventReported
                && loop.coarseNanos() - lossNoticed > LOSS_GRACE_NANOS) {
            broken(events, pendingLoss);
            return work + 1;
        }
        if (!peerEventReported && (peerClosed || peerLost) && (peerLost || goodbyeTaken(events))) {
            peerEventReported = true;
            work++;
            if (peerClosed) {
                events.received(ControlWord.encode(ControlWord.CLOSE, 0), null);
            } else {
                broken(events, new ConnectionLostException("peer at " + remoteAddress + " is gone: " + lostReason,
                        fabric.provider, 0, null, null));
            }
        }
        return work;
    }

    /**
     * Whether the peer's goodbye may be taken now: the goodbye travels on the bootstrap connection and may overtake
     * the peer's last messages on the fabric, so it waits until as many messages as the peer says it sent have
     * arrived and been handed up in order. One that does not come within the peer timeout was lost with the
     * connection: the endpoint breaks instead of closing cleanly (with a goodbye that did not count, at once).
     */
    private boolean goodbyeTaken(WireEvents events) {
        long due = goodbyeCount;
        if (goodbyeHeard == 0) {
            goodbyeHeard = loop.coarseNanos() | 1;
        }
        boolean handedUp = readingSlot < 0 && !readChunkPending
                && (orderCount == 0 || !arrived[postedOrder[orderHead]]);
        if (due < 0 || (messagesArrived >= due && handedUp)) {
            return true;
        }
        if (loop.coarseNanos() - goodbyeHeard > peerTimeoutNanos) {
            peerEventReported = true;
            broken(events, new ConnectionLostException("peer at " + remoteAddress + " closed after sending " + due
                    + " messages, of which " + messagesArrived + " arrived", fabric.provider, 0, null, null));
        }
        return false;
    }

    private void complete(WireEvents events, long context, long len, long data, long source) {
        int slot = slots.slotOf(context);
        if (slot < 0) {
            return; // not a context of ours (a provider's own entry)
        }
        if (slots.kind(slot) == ContextSlots.RECEIVE) {
            if (source == peer) {
                messagesArrived++;
            }
            arrived[slot] = true;
            arrivedLen[slot] = source == peer ? len : STRANGER;
            arrivedWord[slot] = data;
            deliverInOrder(events);
            return;
        }
        switch (slots.kind(slot)) {
            case ContextSlots.CONTROL -> {
                messagesSent++;
                slots.release(slot);
                events.controlCompleted();
            }
            case ContextSlots.DONE_WORD -> {
                messagesSent++;
                slots.release(slot);
            }
            case ContextSlots.RTS_SEND -> {
                messagesSent++;
                ((Buffer) slots.owner(slot)).release();
                slots.release(slot);
            }
            case ContextSlots.RNDV_READ -> {
                slots.release(slot);
                readDone += readChunk;
                if (readDone < readLength) {
                    growReadBuffer();
                    postReadChunk(events);
                } else {
                    finishRendezvousRead(events);
                }
            }
            default -> {
                Op op = (Op) slots.owner(slot);
                slots.release(slot);
                if (op.kind() == dev.rivulet.core.engine.OpKind.SEND) {
                    messagesSent++; // an eager send (a rendezvous one counts its request, RTS_SEND)
                }
                events.completed(op, op.kind() == dev.rivulet.core.engine.OpKind.ATOMIC ? atomicResult(op, slot)
                        : 0);
            }
        }
    }

    /**
     * A rendezvous request reached the head of the receive order: pull the message now. Later arrivals wait behind
     * it so messages stay in order. Returns false when it could not be posted yet (EAGAIN: retried on next poll).
     */
    private boolean startRendezvousRead(WireEvents events, int slot) {
        Buffer rts = (Buffer) slots.owner(slot);
        MemorySegment m = rts.capacitySegment();
        long address = m.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        long length = m.get(ValueLayout.JAVA_LONG_UNALIGNED, 8);
        long key = m.get(ValueLayout.JAVA_LONG_UNALIGNED, 16);
        if (length < 0 || length > caps.maxMessageSize()) {
            broken(events, new dev.rivulet.core.error.CreditProtocolException("rendezvous of " + length
                    + " bytes exceeds the maximum message size"));
            return false;
        }
        boolean whole = length <= FIRST_PIECE || budget.commitAhead(length);
        readInto = memory.allocate((int) (whole ? length : FIRST_PIECE));
        readingSlot = slot;
        readDone = 0;
        readAddress = address;
        readKey = key;
        readLength = length;
        postReadChunk(events);
        return true;
    }

    /**
     * Reads the next piece of the rendezvous message: as much of the rest as {@link #readInto} has room for. A
     * piece that finds no slot or a busy provider waits for the next poll ({@link #readChunkPending}).
     */
    private void postReadChunk(WireEvents events) {
        readChunkPending = false;
        long chunk = Math.min(readLength - readDone, readInto.capacity() - readDone);
        int readSlot = slots.acquire(ContextSlots.RNDV_READ, readInto);
        if (readSlot < 0) {
            readChunkPending = true;
            return;
        }
        dueBy[readSlot] = dueBy(chunk);
        MemorySegment into = readDone == 0 ? readInto.capacitySegment()
                : readInto.capacitySegment().asSlice(readDone);
        long rc = FidEp.read(ep, into, chunk, MEMORY.descriptor(readInto.region()), peer, readAddress + readDone,
                readKey, slots.context(readSlot));
        if (rc != 0) {
            slots.release(readSlot);
            if (rc == -FI_EAGAIN) {
                readChunkPending = true;
            } else {
                broken(events, new ConnectionLostException("rendezvous read failed", fabric.provider, (int) -rc,
                        Libfabric.strerror((int) -rc), null));
            }
            return;
        }
        readChunk = chunk;
    }

    /** A piece filled the read's buffer: the next, twice as large (or the message's size), takes over. */
    private void growReadBuffer() {
        if (readDone < readInto.capacity()) {
            return;
        }
        Buffer bigger = memory.allocate((int) Math.min(readLength, 2 * readDone));
        MemorySegment.copy(readInto.capacitySegment(), 0, bigger.capacitySegment(), 0, readDone);
        readInto.release();
        readInto = bigger;
    }

    private void finishRendezvousRead(WireEvents events) {
        int slot = readingSlot;
        Buffer rts = (Buffer) slots.owner(slot);
        int token = rts.capacitySegment().get(ValueLayout.JAVA_INT_UNALIGNED, 24);
        long word = arrivedWord[slot];
        Buffer dst = readInto.length((int) readLength);
        readingSlot = -1;
        readInto = null;
        budget.frameDone();
        delivered(readLength, 1);
        // pop the request from the order and hand the message up as ordinary DATA
        orderHead = (orderHead + 1) % postedOrder.length;
        orderCount--;
        arrived[slot] = false;
        slots.release(slot);
        rts.release();
        long rc = sendWord((long) token << 32 | RNDV_DONE, ContextSlots.DONE_WORD);
        if (rc < 0) {
            // EAGAIN (no slot or provider resources) is retried on the next poll; a real failure means the peer is gone
            pendingDone = (long) token << 32 | RNDV_DONE;
        }
        events.received(ControlWord.encode(ControlWord.DATA, ControlWord.credits(word)), dst);
        deliverInOrder(events);
    }

    /** Hands up every receive at the head of the posting order that has completed. */
    private void deliverInOrder(WireEvents events) {
        while (orderCount > 0 && arrived[postedOrder[orderHead]] && readingSlot < 0) {
            int slot = postedOrder[orderHead];
            if (arrivedLen[slot] >= 0 && ControlWord.type(arrivedWord[slot]) == RNDV_REQUEST) {
                startRendezvousRead(events, slot);
                return; // resumes in finishRendezvousRead, or on the next poll if the read could not start
            }
            orderHead = (orderHead + 1) % postedOrder.length;
            orderCount--;
            arrived[slot] = false;
            Buffer b = (Buffer) slots.owner(slot);
            slots.release(slot);
            deliver(events, b, arrivedLen[slot], arrivedWord[slot]);
        }
    }

    private void deliver(WireEvents events, Buffer b, long len, long data) {
        if (len == STRANGER) {
            // Unread; a fresh buffer takes its place so the credits granted to the peer stay covered.
            b.release();
            controlToPost++;
            postPendingReceives();
            if (Long.bitCount(++strangersDropped) == 1) {
                LOG.warn("endpoint to {} has dropped {} message(s) that did not come from its peer", remoteAddress,
                        strangersDropped);
            }
            return;
        }
        if (len < 0) {
            b.release(); // a receive that failed; the endpoint was told when it failed
            return;
        }
        int type = ControlWord.type(data);
        if (type == ControlWord.DATA || type == ControlWord.BATCH) {
            b.length((int) len);
            int messages = 1;
            if (type == ControlWord.BATCH) {
                int k = BatchFraming.count(b.capacitySegment(), len);
                if (k > 1) {
                    surplusBuffers += k - 1;
                    messages = k;
                }
            }
            delivered(len, messages);
            events.received(data, b);
        } else {
            b.release();
            controlToPost++;
            postPendingReceives();
            if (type == RNDV_DONE) {
                rendezvousDone(events, (int) ControlWord.credits(data));
            } else {
                events.received(data, null);
            }
        }
    }

    private void readError(WireEvents events) {
        errEntry.fill((byte) 0);
        long rc = FidCq.readerr(cq, errEntry, 0);
        if (rc < 0) {
            broken(events, providerError("fi_cq_readerr", rc));
            return;
        }
        int err = FiCqErrEntry.err(errEntry);
        int provErrno = FiCqErrEntry.provErrno(errEntry);
        String text = Libfabric.strerror(err) + "; provider: " + FidCq.strerror(cq, provErrno,
                FiCqErrEntry.errData(errEntry));
        int slot = slots.slotOf(FiCqErrEntry.opContext(errEntry).address());
        if (slot < 0) {
            LOG.debug("error without a context of ours from {}: {}", remoteAddress, text); // nothing of ours failed
            return;
        }
        if (slots.kind(slot) == ContextSlots.RECEIVE) {
            // Larger than the eager size both sides agreed on in the hello: not the peer's. Error entries carry no
            // sender, and ending the endpoint here would let anyone who can reach it close it.
            boolean stranger = err == FI_ETRUNC || err == FI_EMSGSIZE;
            arrived[slot] = true;
            arrivedLen[slot] = stranger ? STRANGER : -1; // released, in its turn, by deliverInOrder
            deliverInOrder(events);
            if (!stranger && err != FI_ECANCELED && !closed) {
                broken(events, new ConnectionLostException("receive failed", fabric.provider, err, text, null));
            }
            return;
        }
        byte kind = slots.kind(slot);
        Object owner = slots.owner(slot);
        slots.release(slot);
        switch (kind) {
            case ContextSlots.CONTROL, ContextSlots.DONE_WORD -> {
                // Protocol words are best effort: if the peer really is gone, the bootstrap liveness channel says
                // so, and the data path reports its own errors.
                LOG.debug("error for a control word to {}: {}", remoteAddress, text);
                if (kind == ContextSlots.CONTROL) {
                    events.controlCompleted();
                }
            }
            case ContextSlots.RTS_SEND -> {
                ((Buffer) owner).release();
                broken(events, new ConnectionLostException("rendezvous request failed", fabric.provider, err, text,
                        null));
            }
            case ContextSlots.RNDV_READ -> {
                ((Buffer) owner).release();
                readInto = null;
                broken(events, new ConnectionLostException("rendezvous read failed", fabric.provider, err, text,
                        null));
            }
            default -> {
                Op op = (Op) owner;
                TransportException error = classify(op, err, text);
                if (!closed && err == FI_ECANCELED && error instanceof RemoteAccessException
                        && fabric.refusalDropsConnection) {
                    // tcp reports a refusal and an operation flushed by a connection that died the same way
                    // (ECANCELED): it is a refusal only if the peer is still there a moment later.
                    if (heldRefusals.isEmpty()) {
                        refusalSeen = loop.coarseNanos();
                    }
                    heldRefusals.addLast(op);
                    heldErrors.addLast(error);
                    return;
                }
                events.failed(op, error);
                if (closed) {
                    return;
                }
                if (error instanceof RemoteAccessException && fabric.refusalDropsConnection) {
                    // The provider's connection is gone with the refusal (or soon will be): end the endpoint now,
                    // once, rather than let whatever is posted next fail at random.
                    broken(events, new ConnectionLostException("the " + fabric.provider + " provider ends its "
                            + "connection after a refused one-sided operation; the endpoint is closed",
                            fabric.provider, err, text, null));
                } else if (error instanceof ConnectionLostException && pendingLoss == null) {
                    // A message or operation lost with the connection: the credits and order behind it cannot be
                    // trusted any more. But a peer that closes gracefully resets sends still on their way too, and
                    // its goodbye may reach the bootstrap channel a moment after that: the endpoint breaks only if
                    // no goodbye comes within the grace period.
                    pendingLoss = error;
                    lossNoticed = loop.coarseNanos();
                }
            }
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
        boolean oneSided = op.kind() != dev.rivulet.core.engine.OpKind.SEND;
        if (closed) {
            return breakCause != null ? breakCause
                    : new ResourceClosedException(op.kind() + " flushed: the endpoint closed", fabric.provider, err,
                    text, null);
        }
        return switch (err) {
            case FI_EIO, FI_ECONNRESET, FI_ECONNABORTED, FI_ECONNREFUSED, FI_ETIMEDOUT, FI_EHOSTUNREACH, FI_ENOTCONN,
                 FabricErrors.EPIPE -> new ConnectionLostException(op.kind() + " failed: connection lost",
                    fabric.provider, err, text, null);
            case FI_EACCES, FI_EKEYREJECTED, FI_EINVAL, FI_EFAULT, FI_ECANCELED -> oneSided
                    ? new RemoteAccessException(MemoryDomain.REFUSED, fabric.provider, err, text, null)
                    : new ConnectionLostException("send failed", fabric.provider, err, text, null);
            default -> new ProviderException(op.kind() + " failed", fabric.provider, err, text, null);
        };
    }

    /** The time by which an operation moving {@code bytes} posted now must have completed. */
    private long dueBy(long bytes) {
        return loop.coarseNanos() + writeTimeoutNanos + bytes * NANOS_PER_BYTE;
    }

    /** One second per MiB (1 MiB/s): the slowest link a large operation is allowed before it counts as stalled. */
    private static final long NANOS_PER_BYTE = 1_000_000_000L / (1 << 20);

    /**
     * The write timeout: an operation handed to the provider that has not completed for that long (sends, puts,
     * gets, atomics, rendezvous; not receives, which wait for the peer by design) means the peer stopped making
     * progress or stopped reading. Checked a few times per timeout on the loop's coarse clock.
     */
    private boolean checkStalls(WireEvents events) {
        long now = loop.coarseNanos();
        if (now - lastStallCheck < checkEveryNanos) {
            return false;
        }
        lastStallCheck = now;
        for (int slot = 0; slot < slots.capacity(); slot++) {
            byte kind = slots.kind(slot);
            if (kind == ContextSlots.FREE || kind == ContextSlots.RECEIVE) {
                continue;
            }
            if (now - dueBy[slot] > 0) {
                broken(events, new ConnectionLostException("an operation to " + remoteAddress + " has not completed "
                        + "within " + java.time.Duration.ofNanos(writeTimeoutNanos) + " plus a second per MiB it moves "
                        + "(liveness.writeTimeout)",
                        fabric.provider, 0, null, null));
                return true;
            }
        }
        return false;
    }

    /**
     * Ends the operations held by a possible refusal: with the connection's loss when the bootstrap channel says the
     * peer is gone (or gone away), else as refusals, after which the endpoint closes (the provider dropped its
     * connection). Returns whether the endpoint was closed.
     */
    private boolean settleHeldRefusals(WireEvents events) {
        boolean gone = peerLost || peerClosed;
        TransportException last = null;
        Op op;
        while ((op = heldRefusals.pollFirst()) != null) {
            TransportException refusal = heldErrors.pollFirst();
            last = refusal;
            events.failed(op, gone ? new ConnectionLostException(op.kind() + " failed: the peer is gone",
                    fabric.provider, refusal.nativeCode(), refusal.nativeMessage(), null) : refusal);
        }
        if (gone || closed || last == null) {
            return false; // the peer's own event (goodbye or loss) closes the endpoint in this poll
        }
        broken(events, new ConnectionLostException("the " + fabric.provider + " provider ends its connection after a "
                + "refused one-sided operation; the endpoint is closed", fabric.provider, last.nativeCode(),
                last.nativeMessage(), null));
        return true;
    }

    /** Tells the engine the connection is broken; the close that follows aborts the bootstrap channel. */
    private void broken(WireEvents events, TransportException cause) {
        brokenReported = true;
        if (breakCause == null) {
            breakCause = cause;
        }
        events.broken(cause);
    }

    /** What operations still posted when the wire closes end with: what broke it, or the close itself. */
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
        } finally {
            closeEndpoint(); // whatever the step before it threw: a close stopped half-way would keep it for good
        }
    }

    private void closeEndpoint() {
        if (fabric.sharesPeerMappings) {
            // The endpoint may stay open in libfabric after this (SameProcessShm): withdraw every posted receive, so
            // the buffers drainAfterClose releases can never be written. shm only moves data into them inside a
            // poll of this queue, which never happens again; the context slab and scratch words stay allocated
            // until the provider lets go of the endpoint.
            cancelPostedReceives();
        }
        // Once the endpoint is closed (or, on shm, retired) nothing writes our buffers: drainAfterClose releases them.
        fabric.closeEndpoint(handles, peer, () -> {
            scratch.close();
            arena.close();
        });
        onClose.closed(!brokenReported, messagesSent);
    }

    private void cancelPostedReceives() {
        for (int slot = 0; slot < slots.capacity(); slot++) {
            if (slots.kind(slot) == ContextSlots.RECEIVE) {
                // One that already matched is not found: its completion waits in the queue, its buffer is written
                FidEp.cancel(ep, slots.context(slot));
            }
        }
    }

    /** After close: every operation still posted is reported as flushed, every posted receive released. */
    private int drainAfterClose(WireEvents events) {
        if (drainedAfterClose) {
            return 0;
        }
        drainedAfterClose = true;
        int n = 0;
        Op held;
        while ((held = heldRefusals.pollFirst()) != null) {
            heldErrors.pollFirst();
            events.failed(held, closedCause());
            n++;
        }
        for (int slot = 0; slot < slots.capacity(); slot++) {
            byte kind = slots.kind(slot);
            if (kind == ContextSlots.FREE) {
                continue;
            }
            Object owner = slots.owner(slot);
            slots.release(slot);
            n++;
            if (owner == readInto) {
                readInto = null; // released just below, as the read's slot owns it
            }
            switch (kind) {
                case ContextSlots.CONTROL, ContextSlots.DONE_WORD -> { }
                case ContextSlots.RECEIVE, ContextSlots.RTS_SEND, ContextSlots.RNDV_READ -> ((Buffer) owner).release();
                default -> {
                    if (rndvWindows[slot] != null) {
                        rndvWindows[slot].close();
                        rndvWindows[slot] = null;
                    }
                    events.failed((Op) owner, closedCause());
                }
            }
        }
        if (readInto != null) {
            readInto.release(); // between two pieces of a rendezvous read: no slot holds it
            readInto = null;
        }
        budget.close();
        return n;
    }

    /**
     * Throws once closed. True once the provider reported the connection lost: nothing more is posted then (the
     * engine waits for the goodbye or the break), since a post would have tcp;ofi_rxm dial the peer's address again.
     */
    private boolean connectionGone() {
        if (closed) {
            throw new ResourceClosedException("endpoint is closed");
        }
        return pendingLoss != null;
    }

    private void checkPost(String call, long rc) {
        if (rc < 0) {
            throw providerError(call, rc);
        }
    }

    private TransportException providerError(String call, long rc) {
        return FabricErrors.ofCall(fabric.provider, call, rc);
    }

    /** Messages this endpoint dropped because they did not come from its peer. Progress thread only. */
    long strangersDropped() {
        return strangersDropped;
    }

    @Override
    public Capabilities capabilities() {
        return caps;
    }

    @Override
    public String remoteAddress() {
        return remoteAddress;
    }
}
