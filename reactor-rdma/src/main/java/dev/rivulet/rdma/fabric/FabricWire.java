package dev.rivulet.rdma.fabric;

import dev.rivulet.core.Capabilities;
import dev.rivulet.core.admission.ReceiveBudget;
import dev.rivulet.core.engine.Op;
import dev.rivulet.core.engine.OpKind;
import dev.rivulet.core.engine.Wire;
import dev.rivulet.core.engine.WireEvents;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.internal.MemoryAccess;
import dev.rivulet.core.liveness.LivenessSettings;
import dev.rivulet.core.loop.ProgressLoop;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.rdma.fabric.sys.FiCqDataEntry;
import dev.rivulet.rdma.fabric.sys.FidCq;
import dev.rivulet.rdma.fabric.sys.FidEp;
import dev.rivulet.rdma.wire.ConnectionFate;
import dev.rivulet.rdma.wire.RdmaWire;
import dev.rivulet.rdma.wire.OwedReceives;
import dev.rivulet.rdma.wire.WriteTimeout;

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
 *   <li><b>Receives</b>, in posting order, with strangers' messages dropped: {@link FabricReceives}.</li>
 *   <li><b>Large messages</b> go by rendezvous: {@link RendezvousSender}, {@link RendezvousReader}.</li>
 *   <li><b>Puts, gets, atomics</b>: {@link FabricRma}.</li>
 *   <li><b>NO_RESOURCE</b>: {@code -FI_EAGAIN} from a post, or no free context slot ({@link ContextSlots}).</li>
 *   <li><b>Errors</b>: {@code fi_cq_readerr} entries become typed exceptions ({@link FabricFailures}); how the
 *       connection ends, from the data path or the bootstrap channel, is {@link ConnectionFate}'s.</li>
 * </ul>
 * How it ends, and what it reports after closing, is {@link RdmaWire}'s. Progress thread only, except
 * {@link #peerGone}.
 */
final class FabricWire extends RdmaWire {

    private static final MemoryAccess MEMORY = Internals.memory();

    /** Receive buffers kept posted for protocol-only words on top of the engine's data slots. */
    static final int CONTROL_SLOTS = OwedReceives.CONTROL_SLOTS;
    private static final int CQ_BATCH = 64;

    private final FabricDomain fabric;
    private final FabricDomain.EndpointHandles handles;
    private final MemorySegment cq;
    private final int eagerSize;
    private final Arena arena = Arena.ofShared();
    private final FabricLink link;
    private final ContextSlots slots;
    private final FabricRma rma;
    private final RendezvousSender rendezvous;
    private final RendezvousReader reader;
    private final FabricReceives receives;
    private final FabricFailures failures;
    private final ReceiveBudget.Connection budget;
    private final MemorySegment entries;
    /** The sender of each entry of the last CQ batch ({@code FI_SOURCE}). */
    private final MemorySegment sources;
    /** Messages this side's sends delivered to the peer's receives (counted as their sends completed). */
    private long messagesSent;

    FabricWire(FabricDomain fabric, MemoryDomain memory, Capabilities caps, FabricDomain.EndpointHandles handles,
               long peer, int eagerSize, String remoteAddress, ProgressLoop loop, LivenessSettings liveness,
               ReceiveBudget.Connection budget) {
        super(fabric.provider, caps, remoteAddress, loop, liveness);
        this.fabric = fabric;
        this.handles = handles;
        this.cq = handles.cq();
        this.eagerSize = eagerSize;
        this.budget = budget;
        int slotCount = caps.sendQueueDepth() + caps.receiveQueueDepth() + CONTROL_SLOTS + 16;
        this.slots = new ContextSlots(arena, slotCount);
        this.link = new FabricLink(fabric, handles.ep(), peer, slots, loop, new WriteTimeout(liveness));
        this.entries = FiCqDataEntry.allocateArray(arena, CQ_BATCH);
        this.sources = arena.allocate(ValueLayout.JAVA_LONG, CQ_BATCH);
        this.rma = new FabricRma(link, memory, arena);
        this.rendezvous = new RendezvousSender(link, memory, this, fate);
        this.reader = new RendezvousReader(link, memory, budget, caps.maxMessageSize(), fate, this::sendWord);
        this.receives = new FabricReceives(link, memory, eagerSize, caps.receiveQueueDepth(), budget, fate, reader,
                rendezvous, remoteAddress);
        this.failures = new FabricFailures(link, cq, arena, fate, receives, reader, remoteAddress);
    }

    // ---------------------------------------------------------------------------------------------- posting

    @Override
    public int send(long controlWord, Op op) {
        if (connectionGone()) {
            return NO_RESOURCE;
        }
        try {
            if (op == null) {
                long rc = sendWord(controlWord, ContextSlots.CONTROL);
                if (rc == -FI_EAGAIN) {
                    return NO_RESOURCE;
                }
                if (rc < 0) {
                    throw link.error("fi_senddata", rc);
                }
                return POSTED;
            }
            Buffer b = op.buffer();
            if (b.length() > eagerSize) {
                return rendezvous.send(controlWord, op);
            }
            int slot = link.acquire(ContextSlots.OPERATION, op, b.length());
            if (slot < 0) {
                return NO_RESOURCE;
            }
            long rc = FidEp.senddata(link.ep, b.capacitySegment(), b.length(), MEMORY.descriptor(b.region()),
                    controlWord, link.peer, slots.context(slot));
            return link.posted(slot, rc, "fi_senddata");
        } catch (ConnectionLostException lost) {
            // A provider that tells at once that the peer is unreachable (sockets, after the peer's endpoint closed)
            // says what a lost completion says: the peer may have closed gracefully and its goodbye be on its way,
            // so the send waits for it as a lost operation does, and the connection breaks only if none comes.
            fate.noteLoss(lost, link.now());
            return NO_RESOURCE;
        }
    }

    /**
     * Sends a zero-byte message carrying only {@code word}, with a context of ours ({@code kind} CONTROL or DONE_WORD)
     * rather than as an inject: rxm on libfabric 1.17 crashes (a NULL context dereferenced in its completion error
     * handling) when it closes a connection whose queue still holds an inject, which is exactly the state a peer
     * lost mid-stream leaves behind. Returns the provider's code; -FI_EAGAIN also when no context slot is free.
     */
    private long sendWord(long word, byte kind) {
        int slot = fate.lossPending() ? -1 : link.acquire(kind, null, 0);
        if (slot < 0) {
            return -FI_EAGAIN;
        }
        long rc = FidEp.senddata(link.ep, MemorySegment.NULL, 0, MemorySegment.NULL, word, link.peer,
                slots.context(slot));
        if (rc != 0) {
            slots.release(slot);
        }
        return rc;
    }

    @Override
    public int receiveWindow() {
        return receives.window();
    }

    @Override
    public void postReceives(int count) {
        receives.owe(count);
    }

    @Override
    public int rma(Op op) {
        if (connectionGone()) {
            return NO_RESOURCE;
        }
        int slot = link.acquire(ContextSlots.OPERATION, op, op.bytes());
        return slot < 0 ? NO_RESOURCE : rma.post(op, slot);
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

    /**
     * Throws once closed. True once the provider reported the connection lost: nothing more is posted then (the
     * engine waits for the goodbye or the break), since a post would have tcp;ofi_rxm dial the peer's address again.
     */
    private boolean connectionGone() {
        fate.ensureOpen();
        return fate.lossPending();
    }

    // ---------------------------------------------------------------------------------------------- reaping

    @Override
    protected int progress(WireEvents events) {
        int work = reap(events);
        if (fate.closed()) {
            return work; // a callback closed the endpoint: its queue and endpoint are gone
        }
        if (link.stalled()) {
            fate.broken(events, link.stallError(remoteAddress()));
            return work + 1;
        }
        if (receives.owing()) {
            receives.postOwed();
        }
        reader.retry(events);
        if (!reader.reading()) {
            receives.deliverInOrder(events); // a rendezvous read that found no resources last time
        }
        if (failures.settleDue() && failures.settleHeldRefusals(events)) {
            return work + 1;
        }
        if (fate.breakIfLossOutlived(events, link.now())) {
            return work + 1;
        }
        if (fate.reportPeer(events, link.now(), receives.messagesArrived(), receives.handedUp())) {
            work++;
        }
        return work;
    }

    /** Reads the completion queue until it is empty (or a callback closed the endpoint). */
    private int reap(WireEvents events) {
        int work = 0;
        boolean withSource = fabric.reportsSource;
        for (;;) {
            long n = withSource ? FidCq.readfrom(cq, entries, CQ_BATCH, sources) : FidCq.read(cq, entries, CQ_BATCH);
            if (n > 0) {
                for (int i = 0; i < n && !fate.closed(); i++) {
                    complete(events, FiCqDataEntry.opContextAddress(entries, i), FiCqDataEntry.len(entries, i),
                            FiCqDataEntry.data(entries, i),
                            withSource ? sources.getAtIndex(ValueLayout.JAVA_LONG, i) : link.peer);
                }
                work += (int) n;
                if (n < CQ_BATCH || fate.closed()) {
                    return work; // closed by a callback: the queue is gone, the close already drained what was left
                }
            } else if (n == -FI_EAVAIL) {
                failures.readError(events);
                work++;
                if (fate.closed()) {
                    return work;
                }
            } else if (n == -FI_EAGAIN) {
                return work;
            } else {
                fate.broken(events, link.error("fi_cq_read", n));
                return work + 1;
            }
        }
    }

    private void complete(WireEvents events, long context, long len, long data, long source) {
        int slot = slots.slotOf(context);
        if (slot < 0) {
            return; // not a context of ours (a provider's own entry)
        }
        switch (slots.kind(slot)) {
            case ContextSlots.RECEIVE -> receives.completed(events, slot, len, data, source);
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
                receives.readPieceDone(events);
            }
            default -> {
                Op op = (Op) slots.owner(slot);
                slots.release(slot);
                if (op.kind() == OpKind.SEND) {
                    messagesSent++; // an eager send (a rendezvous one counts its request, RTS_SEND)
                }
                events.completed(op, op.kind() == OpKind.ATOMIC ? rma.atomicResult(op, slot) : 0);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------- teardown

    @Override
    protected void releaseQueues() {
        if (fabric.sharesPeerMappings) {
            // The endpoint may stay open in libfabric after this (SameProcessShm): withdraw every posted receive, so
            // the buffers drainAfterClose releases can never be written. shm only moves data into them inside a
            // poll of this queue, which never happens again; the context slab and scratch words stay allocated
            // until the provider lets go of the endpoint.
            receives.cancelPosted();
        }
        // Once the endpoint is closed (or, on shm, retired) nothing writes our buffers: drainAfterClose releases them.
        fabric.closeEndpoint(handles, link.peer, readsPosted(), () -> {
            rma.close();
            arena.close();
        });
    }

    /** Whether a read posted here (a get, or a rendezvous read of a large message) may still wait for its answer. */
    private boolean readsPosted() {
        for (int slot = 0; slot < slots.capacity(); slot++) {
            byte kind = slots.kind(slot);
            if (kind == ContextSlots.RNDV_READ
                    || kind == ContextSlots.OPERATION && ((Op) slots.owner(slot)).kind() == OpKind.GET) {
                return true;
            }
        }
        return false;
    }

    /** Counted, so that the peer takes this side's goodbye only once they all arrived. */
    @Override
    protected long messagesSent() {
        return messagesSent;
    }

    @Override
    protected int drainAfterClose(WireEvents events) {
        int n = failures.failHeld(events, fate.closedCause());
        for (int slot = 0; slot < slots.capacity(); slot++) {
            byte kind = slots.kind(slot);
            if (kind == ContextSlots.FREE) {
                continue;
            }
            Object owner = slots.owner(slot);
            slots.release(slot);
            n++;
            reader.forget(owner); // released just below, as the read's slot owns it
            switch (kind) {
                case ContextSlots.CONTROL, ContextSlots.DONE_WORD -> { }
                case ContextSlots.RECEIVE, ContextSlots.RTS_SEND, ContextSlots.RNDV_READ -> ((Buffer) owner).release();
                default -> {
                    rendezvous.closeWindow(slot);
                    events.failed((Op) owner, fate.closedCause());
                }
            }
        }
        reader.close();
        budget.close();
        return n;
    }

    /** Messages this endpoint dropped because they did not come from its peer. Progress thread only. */
    long strangersDropped() {
        return receives.strangersDropped();
    }
}
