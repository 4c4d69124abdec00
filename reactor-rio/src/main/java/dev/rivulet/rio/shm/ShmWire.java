package dev.rivulet.rio.shm;

import dev.rivulet.core.Capabilities;
import dev.rivulet.core.admission.ReceiveBudget;
import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.engine.LivenessMonitor;
import dev.rivulet.core.engine.Op;
import dev.rivulet.core.engine.OpKind;
import dev.rivulet.core.engine.Wire;
import dev.rivulet.core.engine.WireEventQueue;
import dev.rivulet.core.engine.WireEvents;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.error.ProviderException;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.internal.MemoryAccess;
import dev.rivulet.core.liveness.LivenessSettings;
import dev.rivulet.core.loop.Pollable;
import dev.rivulet.core.loop.ProgressLoop;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.rio.shm.sys.CrossMemory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * One shared-memory connection: the {@link Wire} the engine posts to, over a {@link ShmConnection}'s two rings and
 * two staging pools. Everything runs on the endpoint's progress thread.
 *
 * <h2>Messages</h2>
 * A message up to the large-message threshold is copied into one {@code MESSAGE} record of the ring, carrying the
 * credit protocol's control word unchanged; the send completes at once (local completion: the bytes are in the shared
 * ring, the buffer is free). A larger one is a {@code LARGE} record followed by {@code CHUNK}s: the bytes are copied
 * into the staging pool chunk by chunk as room frees up, and the send completes once the last chunk is in. The
 * receiver copies each record or chunk into a pooled buffer of its own domain, taken only when it can have one
 * ({@code tryAllocate}; otherwise the record waits in the ring), and hands it to the engine, which enforces credits.
 * So a slow subscriber stops the credits, the sender's engine parks its sends, and what is in flight never exceeds
 * the ring and the pool.
 *
 * <h2>One-sided operations</h2>
 * A grant the peer mapped ({@link MappedWindow}) is used directly: a put or get is a copy into or out of the
 * mapping, an atomic a {@code VarHandle} atomic on it, whenever nothing of this connection is still on its way (so the
 * orderings the transport promises hold). Everything else is a request the target serves on its progress thread
 * after {@code MemoryDomain.tryResolveRemote} checked key, connection, right and window: small data travels in the
 * request or the answer, larger data through the staging pool, or, where enabled and permitted, the target answers
 * with the address to copy from or to and the initiator copies with {@code process_vm_readv/writev} (the target
 * keeps the grant pinned until the initiator says it is done). Answers come back in request order.
 *
 * <h2>Order on the ring</h2>
 * At most one staged transfer (a large message, a staged put, a staged get answer) runs per direction, and while it
 * runs nothing else that has an order (messages, requests, answers) is written; credit words, close and the
 * mapping notices may pass. Answers owed to the peer wait in a queue bounded by the requests the peer said it keeps
 * in flight, so this side always drains its incoming ring, and two sides flooding each other with requests cannot
 * wedge.
 *
 * <h2>Failure and close</h2>
 * Anything malformed from the peer ends the connection with {@link CreditProtocolException}; the set-up socket's end
 * of stream (the peer's process ended, or it closed without a close word), a silent peer (its heartbeat counter
 * stopped for the peer timeout) or a peer that stopped reading (a write blocked for the write timeout) with
 * {@link ConnectionLostException}. A closed wire lingers on its loop until the peer closed its end of the socket:
 * it keeps draining the incoming ring, so the peer's close word gets through, writes its own close word if the ring
 * was full, and only then releases the pins of windows the peer mapped or was allowed to copy, and unmaps the file.
 */
final class ShmWire implements Wire {

    private static final MemoryAccess MEMORY = Internals.memory();
    private static final Logger log = LoggerFactory.getLogger(ShmWire.class);

    /** Records read per poll at most, so one busy connection cannot starve the others of a loop. */
    private static final int READ_BATCH = 256;
    /** How often the set-up socket is looked at for the peer's end of stream. */
    private static final long SOCKET_CHECK_NANOS = 1_000_000;
    /** Windows of one connection's peer mapped at most, either way. */
    static final int MAX_MAPPINGS = 1024;
    /** Map requests in flight at most, beyond the engine's own operations. */
    static final int MAX_MAP_REQUESTS = 4;
    /** Keys remembered as not mappable at most. */
    private static final int MAX_REMEMBERED_KEYS = 4096;
    /** The largest buffer the domain's pool keeps (BufferPool's largest size class). */
    private static final int LARGEST_POOLED = 1 << 20;
    private static final long CLOSE_WORD = ControlWord.encode(ControlWord.CLOSE, 0);

    private static final int TRANSFER_MESSAGE = 1;
    private static final int TRANSFER_PUT = 2;
    private static final int TRANSFER_GET_ANSWER = 3;

    private final ShmConnection conn;
    private final MemoryDomain memory;
    private final Capabilities caps;
    private final String remoteAddress;
    private final ProgressLoop loop;
    private final ShmLoopWaiter waiter;
    private final SharedRegions regions;
    private final ShmTransport transport;
    private final LivenessMonitor liveness;
    private final long peerTimeoutNanos;
    private final int threshold;
    /** What the peer may make this side commit ahead of its bytes (large messages). */
    private final ReceiveBudget.Connection budget;
    /** A large message beyond the peer's budget starts in a buffer this large, grown as its chunks arrive. */
    private static final int FIRST_PIECE = 64 << 10;
    private final int maxMessage;
    private final boolean crossMemory;
    private final boolean offersCrossMemory;
    private final boolean mapWindows;
    private final int maxAnswers;

    // ---- events for the engine, handed over at the end of each poll ----
    private final WireEventQueue events = new WireEventQueue();

    // ---- writing ----
    private final ArrayDeque<long[]> control = new ArrayDeque<>();
    private final ArrayDeque<Answer> answers = new ArrayDeque<>();
    private final ArrayDeque<Answer> freeAnswers = new ArrayDeque<>();
    private Transfer transfer;
    private boolean blocked;
    private boolean ringPeer;

    // ---- one-sided, initiator side ----
    private final ArrayDeque<Object> awaiting = new ArrayDeque<>();
    private long nextRequestId = 1;
    private int mapRequests;
    /**
     * At most one staged transfer runs each way, so the one this side writes and an arriving staged message keep their
     * state in these, reused, and large messages allocate nothing. An arriving staged put or get answer takes an
     * {@link Incoming} of its own (one object per one-sided operation).
     */
    private final Transfer outgoingTransfer = new Transfer();
    private final Incoming incomingMessage = new Incoming();
    private final Map<Long, MappedWindow> mapped = new HashMap<>();
    private final Map<Long, MappedWindow> mappedById = new HashMap<>();
    /** Keys whose grant the owner would not let this side map: never asked again. */
    private final Map<Long, Boolean> unmappable = new HashMap<>();

    // ---- one-sided, target side ----
    private final Map<Long, Grant> exported = new HashMap<>();
    private final Map<Long, Long> exportedKeys = new HashMap<>();
    private long nextMapId = 1;
    private final Map<Long, Grant> copyGrants = new HashMap<>();

    // ---- reading ----
    private final RingReader.Handler reader = this::onRecord;
    private final RingReader.Handler drainer = this::onRecordWhileClosed;
    private Incoming incoming;
    private boolean stalled;
    /** Receives the engine posted (credits it granted) that no message has used yet. */
    private long slots;
    private boolean peerCloseSeen;
    private long peerBeats;
    private long lastSocketCheck;

    // ---- lifecycle ----
    private boolean closed;
    private TransportException brokenBy;
    private boolean brokenReported;
    private boolean closeWanted;
    private boolean closeWritten;
    private boolean outputShut;
    private boolean released;
    private long lingerDeadline;
    private final Pollable linger = this::lingerPoll;

    ShmWire(ShmTransport transport, ShmConnection conn, MemoryDomain memory, Capabilities caps, String remoteAddress,
            ProgressLoop loop, ShmLoopWaiter waiter, SharedRegions regions, LivenessSettings liveness,
            ShmSettings settings, ReceiveBudget.Connection budget) {
        this.transport = transport;
        this.budget = budget;
        this.conn = conn;
        this.memory = memory;
        this.caps = caps;
        this.remoteAddress = remoteAddress;
        this.loop = loop;
        this.waiter = waiter;
        this.regions = regions;
        this.liveness = new LivenessMonitor(liveness, System.nanoTime());
        this.peerTimeoutNanos = liveness.peerTimeout().toNanos();
        this.maxMessage = (int) caps.maxMessageSize();
        this.threshold = Math.min(settings.largeMessageThreshold(), conn.out.maxPayload() - Records.RMA_REQUEST_BYTES);
        this.crossMemory = settings.crossMemoryAttach() && conn.reachesPeer;
        this.offersCrossMemory = settings.offersCrossMemory();
        this.mapWindows = settings.mapWindows();
        this.maxAnswers = conn.peerMaxRequests;
        this.peerBeats = conn.peerBeats();
    }

    /** Loop thread: joins the loop's sleep. Runs before the endpoint's first poll. */
    void attach() {
        waiter.add(this);
        lastSocketCheck = loop.coarseNanos();
    }

    Doorbell bell() {
        return conn.myBell;
    }

    /** Whether a poll would find something to do: records arrived, or room freed that this side waits for. */
    boolean readyToPoll() {
        return !events.isEmpty() || conn.in.hasRecords()
                || (blocked && (conn.out.roomFreed() || conn.poolOut.roomFreed()));
    }

    // =================================================================================================== posting

    @Override
    public int send(long controlWord, Op op) {
        if (op == null) {
            return sendWord(controlWord);
        }
        checkOpen();
        if (!writeQueued() || transfer != null) {
            return NO_RESOURCE;
        }
        Buffer b = op.buffer();
        int length = b.length();
        if (length <= threshold) {
            long at = conn.out.claim(Records.MESSAGE, controlWord, length);
            if (at < 0) {
                return blockedOnRoom();
            }
            MemorySegment.copy(b.capacitySegment(), 0, conn.out.data(), at, length);
            published();
            return DONE;
        }
        long at = conn.out.claim(Records.LARGE, controlWord, 8);
        if (at < 0) {
            return blockedOnRoom();
        }
        conn.out.data().set(ValueLayout.JAVA_LONG, at, length);
        published();
        transfer = outgoingTransfer.set(TRANSFER_MESSAGE, op, b.capacitySegment(), length, null);
        pumpTransfer();
        return POSTED;
    }

    /** A credit grant or the close word: no order to keep with messages (close ends everything anyway). */
    private int sendWord(long word) {
        if (closed) {
            throw new ResourceClosedException("endpoint is closed");
        }
        long at = conn.out.claim(Records.MESSAGE, word, 0);
        if (at < 0) {
            if (ControlWord.type(word) == ControlWord.CLOSE) {
                closeWanted = true; // written while lingering, once the peer made room
                return DONE;
            }
            return blockedOnRoom();
        }
        if (ControlWord.type(word) == ControlWord.CLOSE) {
            closeWritten = true;
        }
        published();
        return DONE;
    }

    @Override
    public void postReceives(int count) {
        // Buffers are taken from the domain's pool as messages arrive, sized to them. The count is kept here too, so
        // that a message the peer had no credit for is refused before a buffer is taken for it.
        slots += count;
    }

    @Override
    public int rma(Op op) {
        checkOpen();
        if (!writeQueued() || transfer != null) {
            return NO_RESOURCE;
        }
        RemoteMemory remote = op.remote();
        MappedWindow w = mapped.get(remote.key());
        if (w != null && awaiting.isEmpty() && conn.out.drained()) {
            int rc = throughMapping(op, w);
            if (rc >= 0) {
                return rc;
            }
        } else if (w == null && mapWindows && !unmappable.containsKey(remote.key())) {
            if (!Arrays.equals(remote.providerBytes(), SharedRegions.MAPPABLE)) {
                decided(remote.key()); // memory from elsewhere, a ragged window: the owner would not map it
            } else if (mapRequests < MAX_MAP_REQUESTS && mapped.size() < MAX_MAPPINGS) {
                requestMapping(remote);
            }
        }
        return request(op);
    }

    @Override
    public int flush(Op op) {
        checkOpen();
        if (!writeQueued() || transfer != null) {
            return NO_RESOURCE;
        }
        long id = nextRequestId;
        if (conn.out.claim(Records.FLUSH, id, 0) < 0) {
            return blockedOnRoom();
        }
        nextRequestId++;
        op.wireTag = id;
        awaiting.addLast(op);
        published();
        return POSTED;
    }

    /** Remembers that {@code key} is not to be mapped (bounded: forgetting only costs asking again). */
    private void decided(long key) {
        if (unmappable.size() >= MAX_REMEMBERED_KEYS) {
            unmappable.clear();
        }
        unmappable.put(key, Boolean.TRUE);
    }

    /** A put, get or atomic on a window the peer let this side map: done here and now. -1: serve it as a request. */
    private int throughMapping(Op op, MappedWindow w) {
        RemoteMemory r = op.remote();
        long offset = r.address() - w.base();
        try {
            switch (op.kind()) {
                case PUT -> {
                    long n = op.local().length();
                    if (!w.allows(Access.REMOTE_WRITE) || !w.covers(r.address(), n)) {
                        return -1;
                    }
                    MemorySegment.copy(op.local().segment(), 0, w.segment(), offset, n);
                    return DONE;
                }
                case GET -> {
                    long n = op.local().length();
                    if (!w.allows(Access.REMOTE_READ) || !w.covers(r.address(), n)) {
                        return -1;
                    }
                    MemorySegment.copy(w.segment(), offset, op.local().segment(), 0, n);
                    return DONE;
                }
                case ATOMIC -> {
                    if (!w.allows(Access.REMOTE_ATOMIC) || !w.covers(r.address(), op.width())) {
                        return -1;
                    }
                    // The value must reach the engine, which only a completion event carries.
                    events.completed(op, op.atomic().applyTo(w.segment(), offset, op.width(), op.operand(),
                            op.compare()));
                    return POSTED;
                }
                default -> {
                    return -1;
                }
            }
        } catch (InternalError | IllegalStateException e) {
            // The owner freed the region under a mapping it had told us to drop: forget it, refuse this access.
            dropMapping(w);
            throw new RemoteAccessException(MemoryDomain.REFUSED, e);
        }
    }

    private void requestMapping(RemoteMemory r) {
        long id = nextRequestId;
        long at = conn.out.claim(Records.MAP, id, Records.MAP_REQUEST_BYTES);
        if (at < 0) {
            return; // no room: this operation goes as a request anyway, a later one asks again
        }
        MemorySegment d = conn.out.data();
        d.set(ValueLayout.JAVA_LONG, at, r.key());
        d.set(ValueLayout.JAVA_LONG, at + 8, r.address());
        d.set(ValueLayout.JAVA_LONG, at + 16, r.length());
        nextRequestId++;
        mapRequests++;
        unmappable.put(r.key(), Boolean.FALSE); // asked: not again until answered
        awaiting.addLast(new MapRequest(id, r.key(), r.address()));
        published();
    }

    /** A put, get or atomic the target serves. */
    private int request(Op op) {
        long id = nextRequestId;
        RemoteMemory r = op.remote();
        MemorySegment d = conn.out.data();
        long at;
        switch (op.kind()) {
            case PUT -> {
                long n = op.local().length();
                int mode = n <= threshold ? Records.INLINE : crossMemory ? Records.CROSS_MEMORY : Records.STAGED_DATA;
                int payload = Records.RMA_REQUEST_BYTES + (mode == Records.INLINE ? (int) n : 0);
                at = conn.out.claim(Records.PUT, id, payload);
                if (at < 0) {
                    return blockedOnRoom();
                }
                rmaRequest(d, at, r, n, mode);
                if (mode == Records.INLINE) {
                    MemorySegment.copy(op.local().segment(), 0, d, at + Records.RMA_REQUEST_BYTES, n);
                } else if (mode == Records.STAGED_DATA) {
                    transfer = outgoingTransfer.set(TRANSFER_PUT, op, op.local().segment(), n, null);
                }
            }
            case GET -> {
                long n = op.local().length();
                at = conn.out.claim(Records.GET, id, Records.RMA_REQUEST_BYTES);
                if (at < 0) {
                    return blockedOnRoom();
                }
                rmaRequest(d, at, r, n, n > threshold && crossMemory ? Records.CROSS_MEMORY : Records.COPY);
            }
            case ATOMIC -> {
                at = conn.out.claim(Records.ATOMIC, id, Records.ATOMIC_REQUEST_BYTES);
                if (at < 0) {
                    return blockedOnRoom();
                }
                d.set(ValueLayout.JAVA_LONG, at, r.key());
                d.set(ValueLayout.JAVA_LONG, at + 8, r.address());
                d.set(ValueLayout.JAVA_LONG, at + 16, op.operand());
                d.set(ValueLayout.JAVA_LONG, at + 24, op.compare());
                d.set(ValueLayout.JAVA_INT, at + 32, op.atomic().ordinal());
                d.set(ValueLayout.JAVA_INT, at + 36, op.width());
            }
            default -> throw new IllegalStateException("not a one-sided op: " + op.kind());
        }
        nextRequestId++;
        op.wireTag = id;
        awaiting.addLast(op);
        published();
        if (transfer != null) {
            pumpTransfer();
        }
        return POSTED;
    }

    private static void rmaRequest(MemorySegment d, long at, RemoteMemory r, long length, int mode) {
        d.set(ValueLayout.JAVA_LONG, at, r.key());
        d.set(ValueLayout.JAVA_LONG, at + 8, r.address());
        d.set(ValueLayout.JAVA_LONG, at + 16, length);
        d.set(ValueLayout.JAVA_LONG, at + 24, mode);
    }

    private void checkOpen() {
        if (closed) {
            throw new ResourceClosedException("endpoint is closed");
        }
    }

    private int blockedOnRoom() {
        if (!blocked) {
            blocked = true;
            liveness.writeStarted(loop.coarseNanos());
        }
        return NO_RESOURCE;
    }

    /** Publishes what was claimed (a release store: a spinning peer sees it at once) and notes the peer to ring. */
    private void published() {
        conn.out.publish();
        ringPeer = true;
        liveness.sent();
        if (blocked) {
            blocked = false;
            liveness.writeDone();
        }
    }

    /**
     * Writes what this side owes before anything new: notices first, then answers. True when nothing is left
     * queued, so a new record may go.
     */
    private boolean writeQueued() {
        long[] c;
        while ((c = control.peekFirst()) != null) {
            if (conn.out.claim((int) c[0], c[1], 0) < 0) {
                blockedOnRoom();
                return false;
            }
            control.pollFirst();
            published();
        }
        while (transfer == null && !answers.isEmpty()) {
            // Taken off the queue before it is written: a staged answer whose transfer finishes inside writeAnswer
            // comes back here (finishTransfer), and must find the next answer at the head, not this one again.
            Answer a = answers.pollFirst();
            if (!writeAnswer(a)) {
                answers.addFirst(a);
                blockedOnRoom();
                return false;
            }
            recycle(a);
        }
        return answers.isEmpty();
    }

    private void notice(int kind, long word) {
        if (control.isEmpty() && conn.out.claim(kind, word, 0) >= 0) {
            published();
        } else {
            control.addLast(new long[]{kind, word});
        }
    }

    // ================================================================================================ transfers

    /** Copies the current transfer on chunk by chunk while the pool and the ring have room. */
    private void pumpTransfer() {
        Transfer t = transfer;
        while (t != null) {
            if (t.pendingLength > 0) {
                if (!writeChunk(t.pendingPosition, t.pendingLength)) {
                    return;
                }
                t.done += t.pendingLength;
                t.pendingLength = 0;
            }
            if (t.done == t.total) {
                finishTransfer(t);
                t = transfer;
                continue;
            }
            if (t.purpose == TRANSFER_GET_ANSWER && !t.grant.isOpen()) {
                // Revoked while its answer was under way: not one byte more leaves the window.
                if (conn.out.claim(Records.ABORT, t.id, 0) < 0) {
                    blockedOnRoom();
                    return;
                }
                published();
                MEMORY.unpin(t.grant);
                transfer = null;
                t = null;
                writeQueued();
                continue;
            }
            int n = (int) Math.min(t.total - t.done, conn.outPoolChunk);
            long position = conn.poolOut.reserve(n);
            if (position < 0) {
                blockedOnRoom();
                return;
            }
            MemorySegment.copy(t.source, t.sourceOffset + t.done, conn.outPool.data, conn.outPool.index(position), n);
            if (!writeChunk(position, n)) {
                t.pendingPosition = position;
                t.pendingLength = n;
                return;
            }
            t.done += n;
        }
    }

    private boolean writeChunk(long position, int length) {
        long at = conn.out.claim(Records.CHUNK, position, 8);
        if (at < 0) {
            blockedOnRoom();
            return false;
        }
        conn.out.data().set(ValueLayout.JAVA_LONG, at, length);
        published();
        return true;
    }

    private void finishTransfer(Transfer t) {
        transfer = null;
        switch (t.purpose) {
            case TRANSFER_MESSAGE -> events.completed(t.op, 0);
            case TRANSFER_GET_ANSWER -> MEMORY.unpin(t.grant);
            default -> {
                // a staged put completes with the target's answer
            }
        }
        writeQueued();
    }

    // ================================================================================================== polling

    @Override
    public int poll(WireEvents sink) {
        int work = 0;
        if (!closed) {
            try {
                work += readIncoming();
                if (transfer != null) {
                    pumpTransfer();
                }
                writeQueued();
                work += checkLiveness();
            } catch (ShmProtocolException e) {
                broken(new CreditProtocolException("shared-memory protocol violated by the peer: "
                        + e.getMessage()));
            }
            ringPeerIfNeeded();
        }
        return work + events.drainTo(sink);
    }

    private int readIncoming() {
        stalled = false;
        int n = conn.in.read(reader, READ_BATCH);
        if (n > 0) {
            ringPeer = true; // room freed in its ring
            liveness.heard();
        }
        // A record waiting for a buffer keeps the loop polling instead of letting it sleep on a ring with data.
        return n + (stalled ? 1 : 0);
    }

    private void ringPeerIfNeeded() {
        if (ringPeer) {
            ringPeer = false;
            conn.peerBell.ring();
        }
    }

    private int checkLiveness() {
        long now = loop.coarseNanos();
        long beats = conn.peerBeats();
        if (beats != peerBeats) {
            peerBeats = beats;
            liveness.heard();
        }
        switch (liveness.check(now)) {
            case LivenessMonitor.SEND_HEARTBEAT -> conn.beat();
            case LivenessMonitor.PEER_TIMEOUT -> {
                broken(new ConnectionLostException("nothing heard from the peer for "
                        + liveness.silentNanos(now) / 1_000_000 + " ms (liveness.peerTimeout "
                        + liveness.settings().peerTimeout() + ")"));
                return 1;
            }
            case LivenessMonitor.WRITE_TIMEOUT -> {
                broken(new ConnectionLostException("the peer has not read for "
                        + liveness.settings().writeTimeout() + " (liveness.writeTimeout)"));
                return 1;
            }
            default -> {
            }
        }
        if (now - lastSocketCheck >= SOCKET_CHECK_NANOS) {
            lastSocketCheck = now;
            int s = conn.checkSocket();
            if (s != 0) {
                peerGone(s > 0);
                return 1;
            }
        }
        return 0;
    }

    /** The set-up socket ended (or carried bytes it never should): read what the peer left, then report it. */
    private void peerGone(boolean wroteOnSocket) {
        if (wroteOnSocket) {
            broken(new CreditProtocolException("the peer wrote on the set-up socket after set-up"));
            return;
        }
        // Whatever the peer wrote before its end is in the ring already: a close word there is a graceful close.
        while (!closed && !peerCloseSeen && conn.in.read(reader, Integer.MAX_VALUE) > 0) {
            if (stalled) {
                break; // a message with no buffer yet: the next poll reads on
            }
        }
        if (!peerCloseSeen && !stalled) {
            broken(new ConnectionLostException("the peer's process ended or it closed the connection without a "
                    + "close word"));
        }
    }

    private void broken(TransportException cause) {
        if (brokenBy == null) {
            brokenBy = cause;
        }
        if (!brokenReported) {
            brokenReported = true;
            events.broken(cause);
        }
    }

    // ================================================================================================= arrivals

    private boolean onRecord(int kind, long word, MemorySegment d, long at, int length) {
        return switch (kind) {
            case Records.MESSAGE -> onMessage(word, d, at, length);
            case Records.LARGE -> onLarge(word, d, at, length);
            case Records.CHUNK -> {
                onChunk(word, fixed(d, at, length, 8));
                yield true;
            }
            case Records.PUT, Records.GET, Records.ATOMIC, Records.FLUSH, Records.MAP -> {
                onRequest(kind, word, d, at, length);
                yield true;
            }
            case Records.DONE -> {
                Grant g = copyGrants.remove(word);
                if (g == null) {
                    throw new ShmProtocolException("done for request " + word + ", which was not allowed a copy");
                }
                MEMORY.unpin(g);
                yield true;
            }
            case Records.UNMAP -> {
                MappedWindow w = mappedById.get(word);
                if (w != null) {
                    dropMapping(w);
                    notice(Records.UNMAPPED, word);
                }
                yield true;
            }
            case Records.UNMAPPED -> {
                unexport(word);
                yield true;
            }
            case Records.OK, Records.VALUE, Records.DATA, Records.STAGED, Records.GO, Records.MAPPED,
                 Records.REFUSED -> {
                onAnswer(kind, word, d, at, length);
                yield true;
            }
            case Records.ABORT -> {
                Incoming in = incoming;
                if (in == null || in.purpose != TRANSFER_GET_ANSWER) {
                    throw new ShmProtocolException("abort with no staged answer under way");
                }
                incoming = null;
                events.failed(in.op, new RemoteAccessException(MemoryDomain.REFUSED));
                yield true;
            }
            default -> throw new ShmProtocolException("record of unknown kind " + kind);
        };
    }

    /** The payload's first long, after checking the record is exactly {@code expected} bytes. */
    private static long fixed(MemorySegment d, long at, int length, int expected) {
        if (length != expected) {
            throw new ShmProtocolException("record of " + length + " bytes where " + expected + " are due");
        }
        return d.get(ValueLayout.JAVA_LONG, at);
    }

    private boolean onMessage(long word, MemorySegment d, long at, int length) {
        int type = ControlWord.type(word);
        if (type != ControlWord.DATA && type != ControlWord.BATCH) {
            if (type == ControlWord.CLOSE) {
                peerCloseSeen = true;
                dropIncoming();
            }
            events.received(word, null); // the engine checks the word
            return true;
        }
        if (incoming != null) {
            throw new ShmProtocolException("a message in the middle of a staged transfer");
        }
        if (type == ControlWord.BATCH) {
            throw new ShmProtocolException("a coalesced frame: this transport does not coalesce");
        }
        if (slots <= 0) {
            throw new ShmProtocolException("a message without a credit");
        }
        if (length > maxMessage) {
            throw new ShmProtocolException("message of " + length + " bytes (the limit is " + maxMessage + ")");
        }
        Buffer b = receiveBuffer(length);
        if (b == null) {
            stalled = true;
            return false;
        }
        slots--;
        MemorySegment.copy(d, at, b.capacitySegment(), 0, length);
        events.received(word, b);
        return true;
    }

    /**
     * A buffer for an arriving message, or null while the pool is growing in the background (the record then waits
     * in the ring). Messages beyond the pool's largest class get a registration of their own, which a polling thread
     * can only wait for, as every transport's receive path does.
     */
    private Buffer receiveBuffer(int length) {
        Buffer b = memory.buffers().tryAllocate(length);
        return b != null || length <= LARGEST_POOLED ? b : memory.allocate(length);
    }

    private boolean onLarge(long word, MemorySegment d, long at, int length) {
        long total = fixed(d, at, length, 8);
        int type = ControlWord.type(word);
        if (incoming != null || type != ControlWord.DATA || total <= 0 || total > maxMessage || slots <= 0) {
            throw new ShmProtocolException("large message of " + total + " bytes, word 0x" + Long.toHexString(word)
                    + (slots <= 0 ? ", without a credit" : ""));
        }
        // The record only announces the message; its bytes come chunk by chunk: beyond the peer's receive budget the
        // buffer starts small and grows as they arrive (onChunk).
        boolean whole = total <= FIRST_PIECE || budget.commitAhead(total);
        Buffer b = receiveBuffer((int) (whole ? total : FIRST_PIECE));
        if (b == null) {
            if (whole) {
                budget.frameDone();
            }
            stalled = true;
            return false;
        }
        slots--;
        Incoming in = incomingMessage.set(TRANSFER_MESSAGE, total);
        in.word = word;
        in.buffer = b;
        in.destination = b.capacitySegment();
        incoming = in;
        return true;
    }

    private void onChunk(long position, long length) {
        Incoming in = incoming;
        if (in == null || length <= 0 || length > in.total - in.done) {
            throw new ShmProtocolException("chunk of " + length + " bytes with "
                    + (in == null ? "no transfer" : in.total - in.done + " bytes due"));
        }
        int n = (int) length;
        long index = conn.poolIn.check(position, n);
        if (in.purpose == TRANSFER_PUT) {
            if (in.grant != null && in.grant.isOpen()) {
                MemorySegment.copy(conn.inPool.data, index, in.grant.window(), in.destinationOffset + in.done, n);
            } else {
                in.refused = true; // revoked meanwhile, or never granted: nothing of it lands
            }
        } else {
            if (in.purpose == TRANSFER_MESSAGE && in.done + n > in.buffer.capacity()) {
                growIncoming(in, in.done + n);
            }
            MemorySegment.copy(conn.inPool.data, index, in.destination, in.destinationOffset + in.done, n);
        }
        conn.poolIn.free(position, n);
        ringPeer = true;
        in.done += n;
        if (in.done == in.total) {
            incoming = null;
            switch (in.purpose) {
                case TRANSFER_MESSAGE -> {
                    budget.frameDone();
                    budget.delivered(in.total);
                    events.received(in.word, in.buffer.length((int) in.total));
                }
                case TRANSFER_PUT -> {
                    boolean ok = in.grant != null && !in.refused;
                    if (in.grant != null) {
                        MEMORY.unpin(in.grant);
                    }
                    answer(ok ? Records.OK : Records.REFUSED, in.id);
                }
                default -> events.completed(in.op, 0);
            }
        }
    }

    /**
     * A message whose memory follows its bytes needs room for {@code need}: the next buffer, twice as large (or the
     * message's size), takes over what arrived. Only what the pool can give now; a polling thread never waits for
     * more (the message then grows as far as it must, from a registration of its own, as receiveBuffer does).
     */
    private void growIncoming(Incoming in, long need) {
        Buffer bigger = memory.allocate((int) Math.min(in.total, Math.max(need, 2L * in.buffer.capacity())));
        MemorySegment.copy(in.buffer.capacitySegment(), 0, bigger.capacitySegment(), 0, in.done);
        in.buffer.release();
        in.buffer = bigger;
        in.destination = bigger.capacitySegment();
    }

    /** An incoming transfer cut short by a close: its buffer and pin go. */
    private void dropIncoming() {
        Incoming in = incoming;
        incoming = null;
        budget.close();
        if (in == null) {
            return;
        }
        if (in.buffer != null) {
            in.buffer.release();
        }
        if (in.grant != null) {
            MEMORY.unpin(in.grant);
        }
        if (in.op != null) {
            events.failed(in.op, closeCause());
        }
    }

    // ---------------------------------------------------------------------------------------- serving requests

    private void onRequest(int kind, long id, MemorySegment d, long at, int length) {
        if (incoming != null) {
            throw new ShmProtocolException("a request in the middle of a staged transfer");
        }
        // Answers owed (some are unmap notices, which the peer does not count) and copies it was allowed to make.
        if (answers.size() + copyGrants.size() >= 2 * maxAnswers + MAX_MAPPINGS) {
            throw new ShmProtocolException("more requests in flight than the " + maxAnswers + " announced");
        }
        switch (kind) {
            case Records.FLUSH -> {
                if (length != 0) {
                    throw new ShmProtocolException("flush with a payload");
                }
                answer(Records.OK, id); // after every answer before it: everything earlier was processed
            }
            case Records.PUT -> servePut(id, d, at, length);
            case Records.GET -> serveGet(id, d, at, length);
            case Records.ATOMIC -> serveAtomic(id, d, at, length);
            default -> serveMap(id, d, at, length);
        }
    }

    private void servePut(long id, MemorySegment d, long at, int length) {
        if (length < Records.RMA_REQUEST_BYTES) {
            throw new ShmProtocolException("put request of " + length + " bytes");
        }
        long key = d.get(ValueLayout.JAVA_LONG, at);
        long address = d.get(ValueLayout.JAVA_LONG, at + 8);
        long n = d.get(ValueLayout.JAVA_LONG, at + 16);
        long mode = d.get(ValueLayout.JAVA_LONG, at + 24);
        if (n < 0 || n > caps.maxRmaSize()) {
            throw new ShmProtocolException("put of " + n + " bytes");
        }
        Grant g = MEMORY.tryResolveRemote(memory, key, address, n, Access.REMOTE_WRITE, this);
        if (mode == Records.INLINE) {
            if (length != Records.RMA_REQUEST_BYTES + n) {
                if (g != null) {
                    MEMORY.unpin(g);
                }
                throw new ShmProtocolException("inline put of " + n + " bytes in a record of " + length);
            }
            if (g == null) {
                answer(Records.REFUSED, id);
                return;
            }
            try {
                MemorySegment.copy(d, at + Records.RMA_REQUEST_BYTES, g.window(), g.offsetOf(address), n);
            } finally {
                MEMORY.unpin(g);
            }
            answer(Records.OK, id);
        } else if (mode == Records.STAGED_DATA) {
            if (n == 0) {
                if (g != null) {
                    MEMORY.unpin(g);
                }
                answer(g != null ? Records.OK : Records.REFUSED, id);
                return;
            }
            Incoming in = new Incoming().set(TRANSFER_PUT, n);
            in.id = id;
            in.grant = g;
            in.destinationOffset = g != null ? g.offsetOf(address) : 0;
            incoming = in;
        } else if (mode == Records.CROSS_MEMORY) {
            allowCopy(id, g, address);
        } else {
            if (g != null) {
                MEMORY.unpin(g);
            }
            throw new ShmProtocolException("put mode " + mode);
        }
    }

    private void serveGet(long id, MemorySegment d, long at, int length) {
        if (length != Records.RMA_REQUEST_BYTES) {
            throw new ShmProtocolException("get request of " + length + " bytes");
        }
        long key = d.get(ValueLayout.JAVA_LONG, at);
        long address = d.get(ValueLayout.JAVA_LONG, at + 8);
        long n = d.get(ValueLayout.JAVA_LONG, at + 16);
        long mode = d.get(ValueLayout.JAVA_LONG, at + 24);
        if (n < 0 || n > caps.maxRmaSize() || (mode != Records.COPY && mode != Records.CROSS_MEMORY)) {
            throw new ShmProtocolException("get of " + n + " bytes, mode " + mode);
        }
        Grant g = MEMORY.tryResolveRemote(memory, key, address, n, Access.REMOTE_READ, this);
        if (g == null) {
            answer(Records.REFUSED, id);
        } else if (mode == Records.CROSS_MEMORY) {
            allowCopy(id, g, address);
        } else if (n <= threshold) {
            Answer a = newAnswer(Records.DATA, id);
            a.grant = g;
            a.offset = g.offsetOf(address);
            a.length = n;
            queueAnswer(a);
        } else {
            Answer a = newAnswer(Records.STAGED, id);
            a.grant = g; // pinned until the last chunk is out
            a.offset = g.offsetOf(address);
            a.length = n;
            queueAnswer(a);
        }
    }

    /**
     * The initiator copies itself: tell it where, keep the grant pinned until it says it is done. The answer names a
     * virtual address of this process (what {@code process_vm_writev} needs), so only a side that offers copies
     * answers at all: elsewhere an honest peer never asks (it found no canary), and one that asks learns nothing.
     */
    private void allowCopy(long id, Grant g, long address) {
        if (g == null || !offersCrossMemory) {
            if (g != null) {
                MEMORY.unpin(g);
            }
            answer(Records.REFUSED, id);
            return;
        }
        copyGrants.put(id, g);
        Answer a = newAnswer(Records.GO, id);
        a.value = g.window().address() + g.offsetOf(address);
        queueAnswer(a);
    }

    private void serveAtomic(long id, MemorySegment d, long at, int length) {
        if (length != Records.ATOMIC_REQUEST_BYTES) {
            throw new ShmProtocolException("atomic request of " + length + " bytes");
        }
        long key = d.get(ValueLayout.JAVA_LONG, at);
        long address = d.get(ValueLayout.JAVA_LONG, at + 8);
        long operand = d.get(ValueLayout.JAVA_LONG, at + 16);
        long compare = d.get(ValueLayout.JAVA_LONG, at + 24);
        int op = d.get(ValueLayout.JAVA_INT, at + 32);
        int width = d.get(ValueLayout.JAVA_INT, at + 36);
        if ((width != 4 && width != 8) || op < 0 || op >= ATOMICS.length) {
            throw new ShmProtocolException("atomic " + op + " of width " + width);
        }
        // Addresses are aligned as the bytes they name (NativeRegistration.checkedInSoftware), so this is the
        // target word's own alignment; the VarHandle atomic below refuses a misaligned word again.
        if ((address & (width - 1)) != 0) {
            answer(Records.REFUSED, id);
            return;
        }
        Grant g = MEMORY.tryResolveRemote(memory, key, address, width, Access.REMOTE_ATOMIC, this);
        if (g == null) {
            answer(Records.REFUSED, id);
            return;
        }
        long previous;
        try {
            previous = ATOMICS[op].applyTo(g.window(), g.offsetOf(address), width, operand, compare);
        } catch (IllegalArgumentException | IllegalStateException e) {
            answer(Records.REFUSED, id); // misaligned for the hardware, or the memory went
            return;
        } finally {
            MEMORY.unpin(g);
        }
        Answer a = newAnswer(Records.VALUE, id);
        a.value = previous;
        queueAnswer(a);
    }

    private static final dev.rivulet.core.engine.AtomicOp[] ATOMICS = dev.rivulet.core.engine.AtomicOp.values();

    private void serveMap(long id, MemorySegment d, long at, int length) {
        if (length != Records.MAP_REQUEST_BYTES) {
            throw new ShmProtocolException("map request of " + length + " bytes");
        }
        long key = d.get(ValueLayout.JAVA_LONG, at);
        long address = d.get(ValueLayout.JAVA_LONG, at + 8);
        long n = d.get(ValueLayout.JAVA_LONG, at + 16);
        Grant g = n < 0 ? null : MEMORY.tryResolveRemote(memory, key, address, n, Access.REMOTE_READ, this);
        SharedAllocation a = null;
        if (g != null && exported.size() < MAX_MAPPINGS) {
            a = regions.mappable(g.window().address(), g.length(), g.rights());
        }
        if (a == null) {
            if (g != null) {
                MEMORY.unpin(g);
            }
            answer(Records.REFUSED, id);
            return;
        }
        // The grant stays pinned while the peer maps it: its region is not freed under the peer's mapping.
        long mapId = nextMapId++;
        exported.put(mapId, g);
        exportedKeys.put(mapId, key);
        regions.exported(key, this);
        Answer m = newAnswer(Records.MAPPED, id);
        m.value = mapId;
        m.offset = a.fileOffset(g.window().address());
        m.length = g.length();
        m.grant = g;
        m.fd = a.fd;
        m.rights = MappedWindow.rightsOf(g.rights());
        queueAnswer(m);
        if (!g.isOpen()) {
            grantRevokedHere(key); // revoked while we answered: the unmap notice follows the answer
        }
    }

    /** The peer unmapped a window (or the connection is over): its pin goes. */
    private void unexport(long mapId) {
        Grant g = exported.remove(mapId);
        Long key = exportedKeys.remove(mapId);
        if (g == null) {
            return; // the peer confirms a mapping it could not make, or one already released
        }
        MEMORY.unpin(g);
        if (!exportedKeys.containsValue(key)) {
            regions.unexported(key, this);
        }
    }

    /** Any thread: a grant a peer of this connection mapped was revoked. */
    void grantRevoked(long key) {
        try {
            loop.execute(() -> grantRevokedHere(key));
        } catch (RuntimeException loopGone) {
            // the transport is closing: its connections release every pin as they go
        }
    }

    private void grantRevokedHere(long key) {
        if (closed) {
            return;
        }
        for (Map.Entry<Long, Long> e : exportedKeys.entrySet()) {
            if (e.getValue() == key) {
                // In order with the answers: a notice must not overtake the answer that handed the mapping out.
                Answer a = newAnswer(Records.UNMAP, 0);
                a.value = e.getKey();
                queueAnswer(a);
            }
        }
        ringPeerIfNeeded();
    }

    // -------------------------------------------------------------------------------------------------- answers

    private void answer(int kind, long id) {
        queueAnswer(newAnswer(kind, id));
    }

    private Answer newAnswer(int kind, long id) {
        Answer a = freeAnswers.pollFirst();
        if (a == null) {
            a = new Answer();
        }
        a.kind = kind;
        a.id = id;
        return a;
    }

    private void recycle(Answer a) {
        a.grant = null;
        a.data = null;
        freeAnswers.addLast(a);
    }

    /** Writes the answer now if nothing is ahead of it, else queues it (a get's bytes are copied out first). */
    private void queueAnswer(Answer a) {
        if (answers.isEmpty() && transfer == null && control.isEmpty() && writeAnswer(a)) {
            recycle(a);
            return;
        }
        if (a.kind == Records.DATA && a.data == null) {
            // Waiting answers hold a copy, not a pin: the bytes are those of the moment the get was served.
            a.data = new byte[(int) a.length];
            MemorySegment.copy(a.grant.window(), ValueLayout.JAVA_BYTE, a.offset, a.data, 0, (int) a.length);
            MEMORY.unpin(a.grant);
            a.grant = null;
        }
        answers.addLast(a);
    }

    /** Writes one answer; false when the ring has no room for it. */
    private boolean writeAnswer(Answer a) {
        MemorySegment d = conn.out.data();
        long at;
        switch (a.kind) {
            case Records.OK, Records.REFUSED -> at = conn.out.claim(a.kind, a.id, 0);
            case Records.UNMAP -> at = conn.out.claim(a.kind, a.value, 0);
            case Records.VALUE, Records.GO -> {
                at = conn.out.claim(a.kind, a.id, 8);
                if (at >= 0) {
                    d.set(ValueLayout.JAVA_LONG, at, a.value);
                }
            }
            case Records.DATA -> {
                at = conn.out.claim(a.kind, a.id, (int) a.length);
                if (at >= 0) {
                    if (a.data != null) {
                        MemorySegment.copy(a.data, 0, d, ValueLayout.JAVA_BYTE, at, (int) a.length);
                    } else {
                        MemorySegment.copy(a.grant.window(), a.offset, d, at, a.length);
                        MEMORY.unpin(a.grant);
                    }
                }
            }
            case Records.STAGED -> {
                at = conn.out.claim(a.kind, a.id, 8);
                if (at >= 0) {
                    d.set(ValueLayout.JAVA_LONG, at, a.length);
                    transfer = outgoingTransfer.set(TRANSFER_GET_ANSWER, null, a.grant.window(), a.length, a.grant);
                    transfer.sourceOffset = a.offset;
                    transfer.id = a.id;
                }
            }
            case Records.MAPPED -> {
                at = conn.out.claim(a.kind, a.id, Records.MAPPED_BYTES);
                if (at >= 0) {
                    d.set(ValueLayout.JAVA_LONG, at, a.value);
                    d.set(ValueLayout.JAVA_LONG, at + 8, a.offset);
                    d.set(ValueLayout.JAVA_LONG, at + 16, a.length);
                    d.set(ValueLayout.JAVA_LONG, at + 24, a.grant.remoteBase()); // what the peer's handle names
                    d.set(ValueLayout.JAVA_INT, at + 32, a.fd);
                    d.set(ValueLayout.JAVA_INT, at + 36, a.rights);
                }
            }
            default -> throw new IllegalStateException("answer " + a.kind);
        }
        if (at < 0) {
            return false;
        }
        published();
        if (transfer != null && a.kind == Records.STAGED) {
            pumpTransfer();
        }
        return true;
    }

    // ------------------------------------------------------------------------------------- answers to our requests

    private void onAnswer(int kind, long id, MemorySegment d, long at, int length) {
        Object head = awaiting.peekFirst();
        long headId = head instanceof Op o ? o.wireTag : head instanceof MapRequest m ? m.id : -1;
        if (head == null || headId != id) {
            throw new ShmProtocolException("answer " + kind + " to request " + id + " where " + headId + " is due");
        }
        if (incoming != null) {
            throw new ShmProtocolException("an answer in the middle of a staged transfer");
        }
        awaiting.pollFirst();
        if (head instanceof MapRequest m) {
            onMapAnswer(m, kind, d, at, length);
            return;
        }
        Op op = (Op) head;
        switch (kind) {
            case Records.REFUSED -> events.failed(op, new RemoteAccessException(MemoryDomain.REFUSED));
            case Records.OK -> {
                expect(op, kind, op.kind() == OpKind.PUT || op.kind() == OpKind.FLUSH);
                events.completed(op, 0);
            }
            case Records.VALUE -> {
                expect(op, kind, op.kind() == OpKind.ATOMIC);
                events.completed(op, fixed(d, at, length, 8));
            }
            case Records.DATA -> {
                expect(op, kind, op.kind() == OpKind.GET && length == op.local().length());
                MemorySegment.copy(d, at, op.local().segment(), 0, length);
                events.completed(op, 0);
            }
            case Records.STAGED -> {
                long total = fixed(d, at, length, 8);
                expect(op, kind, op.kind() == OpKind.GET && total == op.local().length() && total > 0);
                Incoming in = new Incoming().set(TRANSFER_GET_ANSWER, total);
                in.op = op;
                in.destination = op.local().segment();
                incoming = in;
            }
            case Records.GO -> {
                expect(op, kind, op.kind() == OpKind.PUT || op.kind() == OpKind.GET);
                copyAcross(op, fixed(d, at, length, 8));
            }
            default -> throw new ShmProtocolException("answer " + kind + " to a " + op.kind());
        }
    }

    private static void expect(Op op, int kind, boolean fits) {
        if (!fits) {
            throw new ShmProtocolException("answer " + kind + " does not fit the " + op.kind() + " it answers");
        }
    }

    /** The target allowed this side to copy to or from {@code target} in its memory, once: copy, then say so. */
    private void copyAcross(Op op, long target) {
        long n = op.local().length();
        long local = op.local().segment().address();
        long r = op.kind() == OpKind.PUT ? CrossMemory.write((int) conn.peerPid, local, target, n)
                : CrossMemory.read((int) conn.peerPid, local, target, n);
        notice(Records.DONE, op.wireTag);
        if (r == n) {
            events.completed(op, 0);
        } else {
            events.failed(op, new ProviderException("process_vm_"
                    + (op.kind() == OpKind.PUT ? "writev" : "readv") + " copied "
                    + (r < 0 ? "nothing (errno " + -r + ")" : r + " of " + n + " bytes")));
        }
    }

    private void onMapAnswer(MapRequest m, int kind, MemorySegment d, long at, int length) {
        mapRequests--;
        if (kind == Records.REFUSED) {
            decided(m.key);
            return;
        }
        if (kind != Records.MAPPED || length != Records.MAPPED_BYTES) {
            throw new ShmProtocolException("answer " + kind + " to a map request");
        }
        long mapId = d.get(ValueLayout.JAVA_LONG, at);
        long fileOffset = d.get(ValueLayout.JAVA_LONG, at + 8);
        long n = d.get(ValueLayout.JAVA_LONG, at + 16);
        long base = d.get(ValueLayout.JAVA_LONG, at + 24);
        int fd = d.get(ValueLayout.JAVA_INT, at + 32);
        int rights = d.get(ValueLayout.JAVA_INT, at + 36);
        try {
            MappedWindow w = MappedWindow.map(mapId, m.key, base, n, rights, conn.peerPid, fd, fileOffset);
            MappedWindow old = mapped.put(m.key, w);
            if (old != null) {
                dropMapping(old);
                notice(Records.UNMAPPED, old.mapId());
            }
            mappedById.put(mapId, w);
            unmappable.remove(m.key);
        } catch (IOException | RuntimeException e) {
            log.debug("could not map a window of the peer's shared memory ({}); its requests are served instead",
                    e.toString());
            decided(m.key);
            notice(Records.UNMAPPED, mapId);
        }
    }

    private void dropMapping(MappedWindow w) {
        mappedById.remove(w.mapId());
        mapped.remove(w.key(), w);
        w.unmap();
    }

    // ==================================================================================================== close

    private TransportException closeCause() {
        return brokenBy != null ? brokenBy : new ResourceClosedException("endpoint closed before the operation "
                + "completed");
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        TransportException cause = closeCause();
        Transfer t = transfer;
        transfer = null;
        if (t != null) {
            if (t.purpose == TRANSFER_MESSAGE) {
                events.failed(t.op, cause);
            } else if (t.purpose == TRANSFER_GET_ANSWER) {
                MEMORY.unpin(t.grant);
            }
        }
        Object o;
        while ((o = awaiting.pollFirst()) != null) {
            if (o instanceof Op op) {
                events.failed(op, cause);
            }
        }
        Incoming in = incoming;
        incoming = null;
        budget.close();
        if (in != null) {
            if (in.buffer != null) {
                in.buffer.release();
            }
            if (in.grant != null) {
                MEMORY.unpin(in.grant);
            }
            if (in.op != null) {
                events.failed(in.op, cause);
            }
        }
        Answer a;
        while ((a = answers.pollFirst()) != null) {
            if (a.grant != null && a.kind != Records.MAPPED && a.kind != Records.GO) {
                MEMORY.unpin(a.grant); // grants of MAPPED and GO answers are held in exported / copyGrants
            }
        }
        for (MappedWindow w : mapped.values()) {
            w.unmap(); // this side never touches them again; the owner releases its pins when our socket ends
        }
        mapped.clear();
        mappedById.clear();
        waiter.remove(this);
        if (brokenBy != null) {
            closeWanted = false; // nobody to tell
        }
        lingerDeadline = System.nanoTime() + peerTimeoutNanos;
        transport.lingering(this);
        if (loop.inLoop()) {
            loop.register(linger);
        } else {
            release(); // the loop has stopped (the transport is going): there is nothing to linger on
        }
    }

    /**
     * A closed connection until the peer's end of the socket closes: drains the incoming ring (so the peer's own
     * close word and its unmap answers get through), writes this side's close word if the ring was full, then shuts
     * this side's end, and releases everything once the peer's end is closed too or the peer timeout passed.
     */
    private int lingerPoll() {
        if (released) {
            return 0;
        }
        int work = 0;
        try {
            work += conn.in.read(drainer, READ_BATCH);
            if (work > 0) {
                ringPeer = true;
            }
            if (closeWanted && !closeWritten && conn.out.claim(Records.MESSAGE, CLOSE_WORD, 0) >= 0) {
                conn.out.publish();
                closeWritten = true;
                ringPeer = true;
                work++;
            }
            ringPeerIfNeeded();
        } catch (ShmProtocolException e) {
            closeWanted = false;
        }
        if (!outputShut && (!closeWanted || closeWritten)) {
            outputShut = true;
            conn.shutdownOutput();
        }
        long now = loop.coarseNanos();
        if (now - lastSocketCheck >= SOCKET_CHECK_NANOS) {
            lastSocketCheck = now;
            if (conn.checkSocket() != 0 || System.nanoTime() - lingerDeadline > 0) {
                release();
                work++;
            }
        }
        return work;
    }

    /** What a closed wire still reads: chunks to free, pins to release; every other record is over. */
    private boolean onRecordWhileClosed(int kind, long word, MemorySegment d, long at, int length) {
        switch (kind) {
            case Records.CHUNK -> {
                long n = fixed(d, at, length, 8);
                if (n > 0 && n <= conn.inPool.maxChunk()) {
                    conn.poolIn.check(word, (int) n);
                    conn.poolIn.free(word, (int) n);
                }
            }
            case Records.UNMAPPED -> unexport(word);
            case Records.DONE -> {
                Grant g = copyGrants.remove(word);
                if (g != null) {
                    MEMORY.unpin(g);
                }
            }
            default -> {
                // nothing to do for a connection that is over
            }
        }
        return true;
    }

    /** Lets go of everything: pins the peer held, the mapping, the socket. Loop thread, or after the loop ended. */
    void release() {
        if (released) {
            return;
        }
        released = true;
        for (Long mapId : java.util.List.copyOf(exported.keySet())) {
            unexport(mapId);
        }
        for (Grant g : copyGrants.values()) {
            MEMORY.unpin(g);
        }
        copyGrants.clear();
        events.discard(); // arrivals nobody will take now
        if (loop.inLoop()) {
            loop.deregister(linger);
        }
        conn.close();
        transport.released(this);
        if (ProcessHandle.of(conn.peerPid).isEmpty()) {
            ShmFiles.sweep(conn.peerPid);
        }
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
        return "ShmWire[" + remoteAddress + ", peer pid " + conn.peerPid + (closed ? ", closed" : "") + "]";
    }

    // ==================================================================================================== state

    /** Something for the engine, handed over at the end of a poll. */
    /** An answer owed to the peer. */
    private static final class Answer {
        int kind;
        long id;
        long value;
        long offset;
        long length;
        int fd;
        int rights;
        Grant grant;
        byte[] data;
    }

    /** A map request in flight (it has no operation of its own). */
    private record MapRequest(long id, long key, long address) {
    }

    /** The staged transfer this side is writing. */
    private static final class Transfer {
        int purpose;
        Op op;
        MemorySegment source;
        long total;
        Grant grant;
        long sourceOffset;
        long done;
        long id;
        long pendingPosition;
        int pendingLength;

        Transfer set(int purpose, Op op, MemorySegment source, long total, Grant grant) {
            this.purpose = purpose;
            this.op = op;
            this.source = source;
            this.total = total;
            this.grant = grant;
            sourceOffset = 0;
            done = 0;
            id = 0;
            pendingPosition = 0;
            pendingLength = 0;
            return this;
        }
    }

    /** The staged transfer this side is reading. */
    private static final class Incoming {
        int purpose;
        long total;
        long done;
        long word;
        long id;
        Buffer buffer;
        Op op;
        Grant grant;
        MemorySegment destination;
        long destinationOffset;
        boolean refused;

        Incoming set(int purpose, long total) {
            this.purpose = purpose;
            this.total = total;
            done = 0;
            word = 0;
            id = 0;
            buffer = null;
            op = null;
            grant = null;
            destination = null;
            destinationOffset = 0;
            refused = false;
            return this;
        }
    }
}
