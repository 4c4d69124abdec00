package dev.rivulet.rio.shm;

import dev.rivulet.core.Capabilities;
import dev.rivulet.core.admission.ReceiveBudget;
import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.credit.CreditGate;
import dev.rivulet.core.engine.LivenessMonitor;
import dev.rivulet.core.engine.Op;
import dev.rivulet.core.engine.Wire;
import dev.rivulet.core.engine.WireEventQueue;
import dev.rivulet.core.engine.WireEvents;
import dev.rivulet.core.engine.wire.Linger;
import dev.rivulet.core.engine.wire.WireFailures;
import dev.rivulet.core.engine.wire.WireLiveness;
import dev.rivulet.core.engine.wire.WireState;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.liveness.LivenessSettings;
import dev.rivulet.core.loop.ProgressLoop;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.remote.SoftwareTarget;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One shared-memory connection: the {@link Wire} the engine posts to, over a {@link ShmConnection}'s two rings and
 * two staging pools. Everything runs on the endpoint's progress thread.
 *
 * <h2>Messages</h2>
 * A message up to the large-message threshold is copied into one {@code MESSAGE} record of the ring, carrying the
 * credit protocol's control word unchanged; the send completes at once (local completion: the bytes are in the shared
 * ring, the buffer is free). A larger one is a {@code LARGE} record followed by {@code CHUNK}s: the bytes are copied
 * into the staging pool chunk by chunk as room frees up ({@link ShmOutbox}), and the send completes once the last
 * chunk is in. The receiver ({@link ShmInbox}) admits each message through the connection's credit gate and copies it
 * into a pooled buffer of its own domain, taken only when it can have one. So a slow subscriber stops the credits,
 * the sender's engine parks its sends, and what is in flight never exceeds the ring and the pool.
 *
 * <h2>One-sided operations</h2>
 * The initiator ({@link ShmInitiator}) uses a window the peer let it map directly, and sends everything else as a
 * request, which the target ({@link ShmRequestServer}) serves through the connection's {@link SoftwareTarget}.
 *
 * <h2>Order on the ring</h2>
 * At most one staged transfer (a large message, a staged put, a staged get answer) runs per direction, and while it
 * runs nothing else that has an order (messages, requests, answers) is written; credit words, close and the
 * mapping notices may pass. Answers owed to the peer are written before anything new ({@link ShmOutbox}).
 *
 * <h2>Failure and close</h2>
 * Anything malformed from the peer ends the connection with {@link CreditProtocolException}
 * ({@link ShmProtocolException}, see {@link WireFailures}); the set-up socket's end of stream (the peer's process
 * ended, or it closed without a close word), a silent peer (its heartbeat counter stopped for the peer timeout) or a
 * peer that stopped reading (a write blocked for the write timeout) with {@link ConnectionLostException}
 * ({@link WireLiveness}). A closed wire lingers on its loop ({@link Linger}) until the peer closed its end of the
 * socket: it keeps draining the incoming ring, so the peer's close word gets through, writes its own close word if
 * the ring was full, and only then releases the pins of windows the peer mapped or was allowed to copy, and unmaps
 * the file.
 */
final class ShmWire implements Wire {

    /** Records read per poll at most, so one busy connection cannot starve the others of a loop. */
    private static final int READ_BATCH = 256;
    /** How often the set-up socket is looked at for the peer's end of stream. */
    private static final long SOCKET_CHECK_NANOS = 1_000_000;
    /** Windows of one connection's peer mapped at most, either way. */
    static final int MAX_MAPPINGS = 1024;
    /** Map requests in flight at most, beyond the engine's own operations. */
    static final int MAX_MAP_REQUESTS = 4;
    private static final long CLOSE_WORD = ControlWord.encode(ControlWord.CLOSE, 0);
    /** What a peer breaking this protocol is reported as. */
    private static final String PROTOCOL = "shared-memory";

    private final ShmConnection conn;
    private final Capabilities caps;
    private final String remoteAddress;
    private final ProgressLoop loop;
    private final ShmLoopWaiter waiter;
    private final ShmTransport transport;
    private final LivenessMonitor liveness;
    private final WireLiveness livenessCheck;
    private final int threshold;
    private final WireState state = new WireState();
    /** Events for the engine, handed over at the end of each poll. */
    private final WireEventQueue events = new WireEventQueue();
    private final ShmOutbox outbox;
    private final ShmInbox inbox;
    private final ShmInitiator initiator;
    private final ShmRequestServer server;
    private final RingReader.Handler reader = this::onRecord;
    private final RingReader.Handler drainer = this::onRecordWhileClosed;
    private final Linger linger;

    private long peerBeats;
    private long lastSocketCheck;
    private boolean closeWanted;
    private boolean closeWritten;
    private boolean outputShut;
    private boolean released;

    ShmWire(ShmTransport transport, ShmConnection conn, MemoryDomain memory, Capabilities caps, String remoteAddress,
            ProgressLoop loop, ShmLoopWaiter waiter, SharedRegions regions, LivenessSettings liveness,
            ShmSettings settings, ReceiveBudget.Connection budget) {
        this.transport = transport;
        this.conn = conn;
        this.caps = caps;
        this.remoteAddress = remoteAddress;
        this.loop = loop;
        this.waiter = waiter;
        this.liveness = new LivenessMonitor(liveness, System.nanoTime());
        this.livenessCheck = new WireLiveness(this.liveness, remoteAddress, conn::beat);
        this.linger = new Linger(loop, liveness.peerTimeout(), this::lingerPoll);
        this.threshold = Math.min(settings.largeMessageThreshold(), conn.out.maxPayload() - Records.RMA_REQUEST_BYTES);
        this.peerBeats = conn.peerBeats();
        SoftwareTarget target = new SoftwareTarget(memory, this);
        this.outbox = new ShmOutbox(conn, target, events, this.liveness, loop);
        this.inbox = new ShmInbox(conn, state, memory, target, outbox, events, budget, (int) caps.maxMessageSize());
        this.initiator = new ShmInitiator(conn, outbox, inbox, events, threshold,
                settings.crossMemoryAttach() && conn.reachesPeer, settings.mapWindows());
        this.server = new ShmRequestServer(this, target, outbox, inbox, regions, caps.maxRmaSize(), threshold,
                settings.offersCrossMemory(), conn.peerMaxRequests);
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
                || (outbox.blocked() && (conn.out.roomFreed() || conn.poolOut.roomFreed()));
    }

    // =================================================================================================== posting

    @Override
    public void attach(CreditGate gate) {
        inbox.attach(gate);
    }

    @Override
    public int send(long controlWord, Op op) {
        if (op == null) {
            return sendWord(controlWord);
        }
        state.ensureOpen();
        if (!outbox.readyForNew()) {
            return NO_RESOURCE;
        }
        Buffer b = op.buffer();
        Buffer body = op.body();
        int length = op.messageLength();
        if (length <= threshold) {
            long at = conn.out.claim(Records.MESSAGE, controlWord, length);
            if (at < 0) {
                return outbox.blockedOnRoom();
            }
            MemorySegment.copy(b.capacitySegment(), 0, conn.out.data(), at, b.length());
            if (body != null) {
                MemorySegment.copy(body.capacitySegment(), 0, conn.out.data(), at + b.length(), body.length());
            }
            outbox.published();
            return DONE;
        }
        long at = conn.out.claim(Records.LARGE, controlWord, 8);
        if (at < 0) {
            return outbox.blockedOnRoom();
        }
        conn.out.data().set(ValueLayout.JAVA_LONG, at, length);
        outbox.published();
        outbox.startMessage(op, b.capacitySegment(), b.length(), body == null ? null : body.capacitySegment(), length);
        return POSTED;
    }

    /** A credit grant or the close word: no order to keep with messages (close ends everything anyway). */
    private int sendWord(long word) {
        state.ensureOpen();
        long at = conn.out.claim(Records.MESSAGE, word, 0);
        if (at < 0) {
            if (ControlWord.type(word) == ControlWord.CLOSE) {
                closeWanted = true; // written while lingering, once the peer made room
                return DONE;
            }
            return outbox.blockedOnRoom();
        }
        if (ControlWord.type(word) == ControlWord.CLOSE) {
            closeWritten = true;
        }
        outbox.published();
        return DONE;
    }

    /** A message's two parts are copied into the ring or the staging pool one after the other. */
    @Override
    public boolean gathers() {
        return true;
    }

    @Override
    public void postReceives(int count) {
        // Buffers are taken from the domain's pool as messages arrive, sized to them, and only for messages the
        // gate admits: the credits are counted there.
    }

    @Override
    public int rma(Op op) {
        state.ensureOpen();
        return outbox.readyForNew() ? initiator.rma(op) : NO_RESOURCE;
    }

    @Override
    public int flush(Op op) {
        state.ensureOpen();
        return outbox.readyForNew() ? initiator.flush(op) : NO_RESOURCE;
    }

    // ================================================================================================== polling

    @Override
    public int poll(WireEvents sink) {
        int work = 0;
        if (!state.isClosed()) {
            try {
                work += readIncoming();
                if (outbox.transferring()) {
                    outbox.pumpTransfer();
                }
                outbox.writeQueued();
                work += checkLiveness();
            } catch (ShmProtocolException | CreditProtocolException e) {
                broken(WireFailures.typed(e, PROTOCOL, "reading from", remoteAddress));
            }
            outbox.ringPeerIfNeeded();
        }
        return work + events.drainTo(sink);
    }

    private int readIncoming() {
        inbox.resetStall();
        int n = conn.in.read(reader, READ_BATCH);
        if (n > 0) {
            outbox.ringPeerLater(); // room freed in its ring
            liveness.heard();
        }
        // A record waiting for a buffer keeps the loop polling instead of letting it sleep on a ring with data.
        return n + (inbox.stalled() ? 1 : 0);
    }

    private int checkLiveness() {
        long now = loop.coarseNanos();
        long beats = conn.peerBeats();
        if (beats != peerBeats) {
            peerBeats = beats;
            liveness.heard();
        }
        ConnectionLostException dead = livenessCheck.check(now);
        if (dead != null) {
            broken(dead);
            return 1;
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
        while (!state.isClosed() && !inbox.peerCloseSeen() && conn.in.read(reader, Integer.MAX_VALUE) > 0) {
            if (inbox.stalled()) {
                break; // a message with no buffer yet: the next poll reads on
            }
        }
        if (!inbox.peerCloseSeen() && !inbox.stalled()) {
            broken(new ConnectionLostException("the peer's process ended or it closed the connection without a "
                    + "close word"));
        }
    }

    private void broken(TransportException cause) {
        if (state.breakWith(cause)) {
            events.broken(cause);
        }
    }

    /** Every record of an open connection, to the part of the wire it is for. */
    private boolean onRecord(int kind, long word, MemorySegment d, long at, int length) {
        switch (kind) {
            case Records.MESSAGE -> {
                return inbox.onMessage(word, d, at, length);
            }
            case Records.LARGE -> {
                return inbox.onLarge(word, d, at, length);
            }
            case Records.CHUNK -> inbox.onChunk(word, ShmInbox.fixed(d, at, length, 8));
            case Records.ABORT -> inbox.onAbort();
            case Records.PUT, Records.GET, Records.ATOMIC, Records.FLUSH, Records.MAP ->
                    server.onRequest(kind, word, d, at, length);
            case Records.DONE -> server.onDone(word, true);
            case Records.UNMAPPED -> server.unexport(word);
            case Records.UNMAP -> initiator.onUnmap(word);
            case Records.OK, Records.VALUE, Records.DATA, Records.STAGED, Records.GO, Records.MAPPED,
                 Records.REFUSED -> initiator.onAnswer(kind, word, d, at, length);
            default -> throw new ShmProtocolException("record of unknown kind " + kind);
        }
        return true;
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
        if (!state.isClosed()) {
            server.grantRevoked(key);
            outbox.ringPeerIfNeeded();
        }
    }

    // ==================================================================================================== close

    @Override
    public void close() {
        if (!state.close()) {
            return;
        }
        TransportException cause = state.closeCause();
        outbox.close(cause);
        initiator.close(cause);
        inbox.drop(cause);
        waiter.remove(this);
        if (state.isBroken()) {
            closeWanted = false; // nobody to tell
        }
        transport.lingering(this);
        if (!linger.start()) {
            release(); // the loop has stopped (the transport is going): there is nothing to linger on
        }
    }

    /**
     * A closed connection until the peer's end of the socket closes: drains the incoming ring (so the peer's own
     * close word and its unmap answers get through), writes this side's close word if the ring was full, then shuts
     * this side's end, and releases everything once the peer's end is closed too or the peer timeout passed.
     */
    private int lingerPoll(boolean overdue) {
        if (released) {
            return 0;
        }
        int work = 0;
        try {
            work += conn.in.read(drainer, READ_BATCH);
            if (work > 0) {
                outbox.ringPeerLater();
            }
            if (closeWanted && !closeWritten && outbox.writeCloseWord(CLOSE_WORD)) {
                closeWritten = true;
                work++;
            }
            outbox.ringPeerIfNeeded();
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
            if (conn.checkSocket() != 0 || overdue) {
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
                long n = ShmInbox.fixed(d, at, length, 8);
                if (n > 0 && n <= conn.inPool.maxChunk()) {
                    conn.poolIn.check(word, (int) n);
                    conn.poolIn.free(word, (int) n);
                }
            }
            case Records.UNMAPPED -> server.unexport(word);
            case Records.DONE -> server.onDone(word, false);
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
        server.releaseAll();
        events.discard(); // arrivals nobody will take now
        linger.stop();
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
        return "ShmWire[" + remoteAddress + ", peer pid " + conn.peerPid + (state.isClosed() ? ", closed" : "") + "]";
    }
}
