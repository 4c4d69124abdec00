package dev.rivulet.rdma.fabric;

import dev.rivulet.core.admission.ReceiveBudget;
import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.engine.WireEvents;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.internal.MemoryAccess;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.rdma.fabric.sys.FidEp;
import dev.rivulet.rdma.wire.ConnectionFate;
import dev.rivulet.rdma.wire.OwedReceives;

import static dev.rivulet.rdma.fabric.sys.FiConstants.FI_ADDR_UNSPEC;
import static dev.rivulet.rdma.fabric.sys.FiConstants.FI_EAGAIN;

/**
 * The receive side of a {@link FabricWire}: the eager buffers it keeps posted, and the order it hands arrivals up in.
 *
 * <ul>
 *   <li><b>Buffers</b>: untagged receives match in posting order whatever arrives, so every posted buffer is
 *       {@code eagerSize} bytes; the engine's data slots plus the protocol-only ones ({@link OwedReceives}) stay
 *       posted.</li>
 *   <li><b>Order</b>: receives complete out of order on providers with {@code comp_order} {@code FI_ORDER_NONE}
 *       (tcp;ofi_rxm finishes a large rendezvous message after smaller ones posted behind it), but buffers are
 *       matched in posting order ({@code msg_order} SAS), so buffer k holds message k. Completions are parked per
 *       slot and handed up strictly in posting order; a rendezvous request at the head is read first
 *       ({@link RendezvousReader}) while the rest waits behind it.</li>
 *   <li><b>Strangers</b>: with {@code FI_SOURCE}, a receive that completed with another sender than the peer, or
 *       that the provider truncated (a message larger than the agreed eager size, which the peer never sends), is
 *       dropped unread in its turn and its buffer replaced: nothing a stranger sends reaches the engine.</li>
 *   <li><b>Window</b>: every posted receive holds an eager buffer, so a peer that has not authenticated gets as many
 *       posted as its byte allowance covers, or its window, whichever is more: {@link #MIN_WINDOW} at first and one
 *       more per message it delivered (as TCP's slow start opens its window), each held from the listener's
 *       total.</li>
 * </ul>
 * Progress thread only.
 */
final class FabricReceives {

    private static final MemoryAccess MEMORY = Internals.memory();
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(FabricReceives.class);

    /** Eager buffers a peer gets posted however little its budget covers: enough for a message and a credit. */
    static final int MIN_WINDOW = 4;
    /** The length parked for a receive that held a stranger's message: dropped in its turn, its buffer replaced. */
    private static final long STRANGER = -2;
    /** The length parked for a receive that failed: the endpoint was told when it failed. */
    private static final long FAILED = -1;

    private final FabricLink link;
    private final MemoryDomain memory;
    private final int eagerSize;
    private final int receiveQueueDepth;
    private final ReceiveBudget.Connection budget;
    private final ConnectionFate fate;
    private final RendezvousReader reader;
    private final RendezvousSender sender;
    private final String remoteAddress;
    private final OwedReceives owed = new OwedReceives();

    /** The posted receive slots in posting order (a ring), and each slot's parked completion. */
    private final int[] postedOrder;
    private int orderHead;
    private int orderCount;
    private final boolean[] arrived;
    private final long[] arrivedLen;
    private final long[] arrivedWord;

    private int window = MIN_WINDOW;
    /** Messages from the peer that completed a receive here. */
    private long messagesArrived;
    /** Messages dropped because they did not come from the peer. */
    private long strangersDropped;

    FabricReceives(FabricLink link, MemoryDomain memory, int eagerSize, int receiveQueueDepth,
                   ReceiveBudget.Connection budget, ConnectionFate fate, RendezvousReader reader,
                   RendezvousSender sender, String remoteAddress) {
        this.link = link;
        this.memory = memory;
        this.eagerSize = eagerSize;
        this.receiveQueueDepth = receiveQueueDepth;
        this.budget = budget;
        this.fate = fate;
        this.reader = reader;
        this.sender = sender;
        this.remoteAddress = remoteAddress;
        int slotCount = link.slots.capacity();
        this.postedOrder = new int[slotCount];
        this.arrived = new boolean[slotCount];
        this.arrivedLen = new long[slotCount];
        this.arrivedWord = new long[slotCount];
    }

    /** How many receives may be posted at once now: what the peer's allowance covers, or its window. */
    int window() {
        return (int) Math.min(Integer.MAX_VALUE, Math.max(window, budget.allowance() / eagerSize));
    }

    /** The engine makes room for {@code count} more data messages: posted now, as far as the provider takes them. */
    void owe(int count) {
        owed.owe(count);
        postOwed();
    }

    /** Whether buffers are owed that an earlier post could not place (retried on every poll). */
    boolean owing() {
        return owed.total() > 0;
    }

    /** Posts the receives owed, protocol-only ones first, stopping at the first EAGAIN (retried on the next poll). */
    void postOwed() {
        while (owed.total() > 0 && postOne()) {
            owed.posted(1);
        }
    }

    private boolean postOne() {
        if (fate.closed()) {
            return false;
        }
        Buffer b = memory.allocate(eagerSize);
        int slot = link.slots.acquire(ContextSlots.RECEIVE, b);
        if (slot < 0) {
            b.release();
            return false;
        }
        // For any sender: a stranger's message is dropped by its source (FabricDomain#reportsSource).
        long rc = FidEp.recv(link.ep, b.capacitySegment(), eagerSize, MEMORY.descriptor(b.region()), FI_ADDR_UNSPEC,
                link.slots.context(slot));
        if (rc == 0) {
            postedOrder[(orderHead + orderCount++) % postedOrder.length] = slot;
            return true;
        }
        link.slots.release(slot);
        b.release();
        if (rc == -FI_EAGAIN) {
            return false;
        }
        throw link.error("fi_recv", rc);
    }

    /** The receive in {@code slot} completed with {@code len} bytes and {@code word} from {@code source}. */
    void completed(WireEvents events, int slot, long len, long word, long source) {
        boolean fromPeer = source == link.peer;
        if (fromPeer) {
            messagesArrived++;
        }
        park(slot, fromPeer ? len : STRANGER, word);
        deliverInOrder(events);
    }

    /** The receive in {@code slot} failed; {@code stranger}: with a message not the peer's (dropped unread). */
    void failed(WireEvents events, int slot, boolean stranger) {
        park(slot, stranger ? STRANGER : FAILED, 0);
        deliverInOrder(events);
    }

    private void park(int slot, long len, long word) {
        arrived[slot] = true;
        arrivedLen[slot] = len;
        arrivedWord[slot] = word;
    }

    /** Hands up every receive at the head of the posting order that has completed. */
    void deliverInOrder(WireEvents events) {
        while (orderCount > 0 && arrived[postedOrder[orderHead]] && !reader.reading()) {
            int slot = postedOrder[orderHead];
            if (arrivedLen[slot] >= 0 && ControlWord.type(arrivedWord[slot]) == RendezvousRequest.REQUEST) {
                reader.start(events, slot, (Buffer) link.slots.owner(slot));
                return; // resumes in readPieceDone, or on the next poll if the read could not start
            }
            Buffer b = popHead();
            deliver(events, b, arrivedLen[slot], arrivedWord[slot]);
        }
    }

    /** Whether everything that arrived was handed up (a goodbye may be taken then). */
    boolean handedUp() {
        return reader.idle() && (orderCount == 0 || !arrived[postedOrder[orderHead]]);
    }

    /** A piece of the rendezvous read at the head completed: once the message is whole, it is handed up as DATA. */
    void readPieceDone(WireEvents events) {
        int slot = reader.requestSlot();
        Buffer message = reader.pieceDone(events);
        if (message == null) {
            return;
        }
        long word = arrivedWord[slot];
        delivered(message.length(), 1);
        Buffer request = popHead();
        int token = RendezvousRequest.token(request.capacitySegment());
        request.release();
        reader.answer(token);
        events.received(ControlWord.encode(ControlWord.DATA, ControlWord.credits(word)), message);
        deliverInOrder(events);
    }

    /** Takes the head of the posting order off: its slot is free again, its buffer returned. */
    private Buffer popHead() {
        int slot = postedOrder[orderHead];
        orderHead = (orderHead + 1) % postedOrder.length;
        orderCount--;
        arrived[slot] = false;
        Buffer b = (Buffer) link.slots.owner(slot);
        link.slots.release(slot);
        return b;
    }

    private void deliver(WireEvents events, Buffer b, long len, long word) {
        if (len == STRANGER) {
            b.release(); // unread; a fresh buffer takes its place so the credits granted to the peer stay covered
            owed.replace();
            postOwed();
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
        if (OwedReceives.carriesData(word)) {
            delivered(len, owed.dataArrived(word, b, len));
            events.received(word, b);
            return;
        }
        b.release();
        owed.replace();
        postOwed();
        if (ControlWord.type(word) == RendezvousRequest.DONE) {
            sender.done(events, (int) ControlWord.credits(word));
        } else {
            events.received(word, null);
        }
    }

    /**
     * {@code messages} arrived in full in {@code bytes}: the peer has earned that much allowance, and one more eager
     * buffer per message.
     */
    private void delivered(long bytes, int messages) {
        budget.delivered(bytes);
        for (int i = 0; i < messages && window < receiveQueueDepth
                && budget.allowance() / eagerSize < receiveQueueDepth && budget.hold(eagerSize); i++) {
            window++;
        }
    }

    /**
     * Withdraws every posted receive (shm, whose endpoint may stay open after the wire closed): one that already
     * matched is not found, its completion waits in the queue and its buffer is written.
     */
    void cancelPosted() {
        for (int slot = 0; slot < link.slots.capacity(); slot++) {
            if (link.slots.kind(slot) == ContextSlots.RECEIVE) {
                FidEp.cancel(link.ep, link.slots.context(slot));
            }
        }
    }

    long messagesArrived() {
        return messagesArrived;
    }

    long strangersDropped() {
        return strangersDropped;
    }
}
