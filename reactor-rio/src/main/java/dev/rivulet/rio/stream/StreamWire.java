package dev.rivulet.rio.stream;

import dev.rivulet.core.internal.MemoryAccess;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.Capabilities;
import dev.rivulet.core.admission.ReceiveBudget;
import dev.rivulet.core.engine.AtomicOp;
import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.engine.Op;
import dev.rivulet.core.engine.OpKind;
import dev.rivulet.core.engine.Wire;
import dev.rivulet.core.engine.WireEventQueue;
import dev.rivulet.core.engine.WireEvents;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.error.InvalidMemoryException;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.credit.BatchFraming;
import dev.rivulet.core.engine.LivenessMonitor;
import dev.rivulet.core.liveness.LivenessSettings;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RegisteredSlice;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.core.loop.Pollable;
import dev.rivulet.core.loop.ProgressLoop;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;

/**
 * One connection over a byte-stream socket, for any {@link StreamChannel} system layer.
 *
 * <h2>Sending</h2>
 * Frames are written in order through a single write in flight (two sends in flight on one stream socket may be
 * reordered by the kernel when the first is retried). Small frames, i.e. headers, RMA requests, responses and
 * payloads up to {@code copyLimit}, are copied into the registered staging buffer, where they accumulate into a
 * <em>unit</em> while the previous write is in flight: the coalescing TCP would otherwise do with Nagle, without its
 * delay. A larger payload is not copied: its header closes the current unit and the payload follows as a unit of
 * its own, sent straight from the message's registered buffer. Where the channel has a gather send, the next write
 * takes every waiting unit up to 1 MiB (headers, payloads, staged runs) as one gather list, so a backlog of large
 * messages leaves in one system call instead of two per message. A send completes locally when the kernel took all of
 * its bytes; staging space is reused after that, and after the zero-copy notification where the system layer sends
 * the staging buffer zero-copy.
 *
 * <h2>Receiving</h2>
 * One receive at a time into the registered receive buffer. The {@link FrameParser} decides from each header alone
 * where its payload may go, so a peer's header never makes this side allocate or write on its word: a message gets a
 * pooled buffer of the transport's domain only when the peer holds a credit for it (counted here from the receives
 * the engine posted), and all of it at once only within the connection's {@link ReceiveBudget} (else a buffer that
 * grows as the bytes arrive, from {@link #FIRST_PIECE}); a frame trickled to hold that memory ends the connection
 * ({@code security.minReceiveRate}). A put's data goes straight into the granted window once its 40-byte request passed
 * {@link MemoryDomain#tryResolveRemote} (key, connection, right, window, pin) and is discarded otherwise, a get's
 * response lands straight in the waiting operation's memory, and everything else is small and has a fixed limit.
 * Where the channel can, the rest of a payload of 16 KiB or more is received straight into its destination (no
 * second copy) by a scatter receive that continues into a little of the receive buffer; for a put only while the
 * peer keeps the socket full, so that a receive into a granted window is not left waiting for the peer across a
 * revocation ({@code putDirect}). Requests are answered in order, so the initiator matches responses with one
 * FIFO; a get's bytes are checked and copied out of the granted window when its response is written (never read
 * from user memory after the fact: an owner may free it once the region is closed). Responses waiting for staging space are bounded: past {@link #MAX_BACKLOG} of them (or
 * {@link #MAX_RESPONSE_BYTES} of copied get answers) the wire stops reading
 * the socket, in the middle of a receive buffer if need be, so a peer that floods requests without reading the
 * answers is slowed by TCP, not buffered without limit.
 *
 * <h2>Failure</h2>
 * A malformed or over-long frame, a message without credit, an unexpected response, or any exception on the receive
 * or send path breaks the connection at once with a typed error and resets the socket (the channel's
 * {@link StreamChannel#abort()}: SO_LINGER 0 and shutdown both ways), so the peer sees the close at once; so does a
 * close the engine makes for a violation it found itself. A closed wire that drains its socket until the peer's end
 * of stream is reset if that has not come within the peer timeout. Liveness ({@link LivenessMonitor}): a side that
 * sent nothing for a heartbeat interval sends {@link FrameKind#HEARTBEAT}, answered by
 * {@link FrameKind#HEARTBEAT_ACK}; nothing heard for the peer timeout, or
 * a write the peer has not taken for the write timeout, ends the connection with {@link ConnectionLostException}.
 *
 * <h2>Completion semantics</h2>
 * Send: the kernel accepted the bytes. Put: the target applied it (RMA_ACK). Get and atomics: the response arrived.
 * Flush: a FLUSH frame answered by FLUSH_ACK, which the target sends after it processed every frame before it, so
 * every earlier message was delivered to the peer's endpoint and every put and atomic applied.
 *
 * <h2>Threading and events</h2>
 * Completions of the system layer arrive through {@link #onCompletion}, on the progress thread but outside
 * {@link #poll}; what they mean for the engine is queued and handed over in the next {@link #poll}. That keeps the
 * engine's callbacks (which may post again, or close the endpoint) out of the completion path, and lets a closed
 * wire keep draining its socket after the engine has let go of it.
 */
public final class StreamWire implements Wire, ChannelUser {

    private static final MemoryAccess MEMORY = Internals.memory();

    private static final Logger log = LoggerFactory.getLogger(StreamWire.class);

    private static final int T_RECV = 1;
    private static final int T_SEND = 2;
    private static final int ID_MASK = (1 << 29) - 1;
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final long CLOSE_WORD = ControlWord.encode(ControlWord.CLOSE, 0);
    /** A gather write stops adding units once it holds this much: completions stay timely, memory bounded. */
    private static final long GATHER_BYTES = 1 << 20;
    /** A payload remainder at least this large is received straight into its buffer where the channel can. */
    private static final int DIRECT_RECEIVE_MIN = 16 << 10;
    /** How much of the receive buffer a scatter receive fills after the payload's rest. */
    private static final long SCATTER_TAIL = 4 << 10;
    /** The most of a put's data one receive straight into the granted window may take (see {@link #postReceive}). */
    private static final int PUT_DIRECT_CHUNK = 256 << 10;
    /** Responses waiting for staging space beyond which the wire stops reading requests (backpressure). */
    static final int MAX_BACKLOG = 64;
    /** Bytes of large get answers copied out and not yet written, beyond which answering waits. */
    public static final long MAX_RESPONSE_BYTES = 4 << 20;
    /**
     * The first buffer of a message whose memory follows its bytes (beyond the connection's budget); each next one is
     * twice as large, so it never holds more than twice what arrived, or this.
     */
    static final int FIRST_PIECE = 64 << 10;
    /** What a refused RMA request is answered with, whatever the reason. */
    private static final byte[] REFUSED = MemoryDomain.REFUSED.getBytes(StandardCharsets.UTF_8);

    private final StreamChannel channel;
    private final MemoryDomain memory;
    private final Capabilities caps;
    private final String remoteAddress;
    private final int copyLimit;
    private final int maxBatchBytes;
    private final ProgressLoop loop;
    private final LivenessMonitor liveness;
    /** What the peer may make this side commit ahead of its bytes, and how fast its frames must arrive. */
    private final ReceiveBudget.Connection budget;
    private final FrameParser parser;
    private final FrameParser.Sink frameSink = new Frames();
    private final MemorySegment staging;
    private final MemorySegment receive;
    private final long stagingCapacity;
    private final long maxUnit;
    /** Whether the channel can receive into payload buffers (see {@link #DIRECT_RECEIVE_MIN}). */
    private final boolean scatterReceives;
    /** The start of the receive buffer that a scatter receive fills after the payload's rest. */
    private final MemorySegment scatterTail;
    /**
     * Parts of the next gather write (length 1 where the channel writes one part at a time), as buffer, offset and
     * length: slices would be one object per part and write.
     */
    private final MemorySegment[] gatherBuffers;
    private final long[] gatherOffsets;
    private final int[] gatherLengths;

    // ---- send side ----
    /** Units not yet fully written, in stream order; the head is the one being written. */
    private final ArrayDeque<Unit> writes = new ArrayDeque<>();
    /** Staged units holding staging space, in allocation order (freed from the head). */
    private final ArrayDeque<Unit> stagedUnits = new ArrayDeque<>();
    private final ArrayDeque<Unit> freeUnits = new ArrayDeque<>();
    /** Responses that found the staging buffer full; sent before anything new. */
    private final ArrayDeque<Response> backlog = new ArrayDeque<>();
    private final ArrayDeque<Response> freeResponses = new ArrayDeque<>();
    /** Requests (put, get, atomic, flush) waiting for their response, in the order the target answers them. */
    private final ArrayDeque<Op> awaiting = new ArrayDeque<>();
    private Unit open;
    private long allocStart;
    private long allocEnd;
    private int nextUnitId;
    private long nextRequestId = 1;
    private boolean writeInFlight;
    /** Bytes of large get answers copied into pooled buffers and not yet written. */
    private long responseBytes;
    private boolean sendRetry;

    // ---- receive side ----
    /** Credits granted to the peer (receives the engine posted) that no message has used yet. */
    private long credits;
    /** The grant a put's data is being written into (pinned until the put ends). */
    private Grant currentPut;
    /** Bytes of the last receive not yet fed to the parser (reading paused while the backlog is full). */
    private int unfedOffset;
    private int unfedLength;
    private boolean recvInFlight;
    /** Bytes of the receive in flight that go straight into the parser's current payload (scatter receive). */
    private int recvDirect;
    /** Bytes the receive in flight may take in all, and whether the last one took all it was given. */
    private long recvPosted;
    private boolean recvFilled;
    private boolean recvRetry;
    private boolean eof;
    private boolean peerCloseSeen;

    // ---- engine events ----
    private final WireEventQueue events = new WireEventQueue();

    // ---- lifecycle ----
    private boolean closed;
    private boolean broken;
    private boolean closeRequested;
    private boolean outputShut;
    private boolean hardStopped;
    private boolean released;
    /** What broke the connection, for the operations still posted when the wire closes. */
    private TransportException brokenBy;
    /** Closed but not yet released: the loop polls {@link #linger} until it is. */
    private boolean lingering;
    private long closedAt;
    private final Pollable linger = this::lingerPoll;

    /**
     * @param copyLimit     payloads up to this size are copied into the staging buffer (coalesced); larger ones are
     *                      sent from their own buffer
     * @param maxBatchBytes the engine's coalesced-frame limit
     * @param loop          the progress loop this wire lives on (its coarse clock times liveness)
     * @param liveness      heartbeat interval, peer timeout and write timeout
     * @param budget        the peer's receive budget: what it may make this side commit ahead of its bytes
     */
    public StreamWire(StreamChannel channel, MemoryDomain memory, Capabilities caps, String remoteAddress,
                      int copyLimit, int maxBatchBytes, ProgressLoop loop, LivenessSettings liveness,
                      ReceiveBudget.Connection budget) {
        this.channel = channel;
        this.loop = loop;
        this.liveness = new LivenessMonitor(liveness, System.nanoTime());
        this.budget = budget;
        this.memory = memory;
        this.caps = caps;
        this.remoteAddress = remoteAddress;
        this.staging = channel.stagingBuffer();
        this.receive = channel.receiveBuffer();
        this.stagingCapacity = staging.byteSize();
        this.maxUnit = stagingCapacity / 2;
        this.copyLimit = (int) Math.min(copyLimit, maxUnit - FrameHeader.BYTES - RmaRequest.BYTES);
        this.maxBatchBytes = maxBatchBytes;
        int parts = Math.max(1, channel.maxGatherParts());
        this.gatherBuffers = new MemorySegment[parts];
        this.gatherOffsets = new long[parts];
        this.gatherLengths = new int[parts];
        this.scatterReceives = channel.scatterReceives();
        this.scatterTail = receive.asSlice(0, Math.min(receive.byteSize(), SCATTER_TAIL));
        this.parser = new FrameParser(caps.maxMessageSize(), maxBatchBytes, caps.maxRmaSize());
    }

    /** Starts receiving; called once on the progress thread after the channel is attached. */
    @Override
    public void start() {
        postReceive();
    }

    // =====================================================================================================
    // Wire
    // =====================================================================================================

    @Override
    public int send(long controlWord, Op op) {
        checkUsable();
        if (op == null && ControlWord.type(controlWord) == ControlWord.CLOSE) {
            // Written by close(), after the stream was cut at a frame boundary, as its very last frame.
            closeRequested = true;
            return DONE;
        }
        if (!drainBacklog()) {
            return NO_RESOURCE;
        }
        if (op == null) {
            if (beginFrame(FrameKind.MESSAGE, controlWord, 0, 0) < 0) {
                return NO_RESOURCE;
            }
            pump();
            return DONE;
        }
        Buffer b = op.buffer();
        int len = b.length();
        boolean copy = len <= copyLimit;
        long at = beginFrame(FrameKind.MESSAGE, controlWord, len, copy ? len : 0);
        if (at < 0) {
            return NO_RESOURCE;
        }
        if (copy) {
            MemorySegment.copy(b.capacitySegment(), 0, staging, at, len);
            open.ops.add(op);
        } else {
            appendPayload(b.capacitySegment(), len, b.retain(), null, op);
        }
        pump();
        return POSTED;
    }

    @Override
    public void postReceives(int count) {
        // Payload buffers are taken from the pool as messages arrive, sized to them, and only for messages the
        // peer has a credit for: these.
        credits += count;
    }

    @Override
    public int rma(Op op) {
        checkUsable();
        if (!drainBacklog()) {
            return NO_RESOURCE;
        }
        long id = nextRequestId++;
        RemoteMemory r = op.remote();
        switch (op.kind()) {
            case PUT -> {
                RegisteredSlice l = op.local();
                int len = (int) l.length();
                boolean copy = len <= copyLimit;
                if (!copy && !MEMORY.tryPin(l.region())) {
                    throw new InvalidMemoryException("local memory region was closed");
                }
                long at = beginFrame(FrameKind.PUT, id, RmaRequest.BYTES + len, RmaRequest.BYTES + (copy ? len : 0));
                if (at < 0) {
                    if (!copy) {
                        MEMORY.unpin(l.region());
                    }
                    return NO_RESOURCE;
                }
                RmaRequest.write(staging, at, r.address(), r.key(), len, 0, 0, 0, 0);
                if (copy) {
                    MemorySegment.copy(l.segment(), 0, staging, at + RmaRequest.BYTES, len);
                } else {
                    appendPayload(l.segment(), len, null, l.region(), null);
                }
            }
            case GET -> {
                long at = beginFrame(FrameKind.GET, id, RmaRequest.BYTES, RmaRequest.BYTES);
                if (at < 0) {
                    return NO_RESOURCE;
                }
                RmaRequest.write(staging, at, r.address(), r.key(), (int) op.local().length(), 0, 0, 0, 0);
            }
            case ATOMIC -> {
                long at = beginFrame(FrameKind.ATOMIC, id, RmaRequest.BYTES, RmaRequest.BYTES);
                if (at < 0) {
                    return NO_RESOURCE;
                }
                RmaRequest.write(staging, at, r.address(), r.key(), op.width(), op.atomic().ordinal(), op.width(),
                        op.operand(), op.compare());
            }
            default -> throw new IllegalStateException("not an RMA op: " + op.kind());
        }
        op.wireTag = id;
        awaiting.addLast(op);
        pump();
        return POSTED;
    }

    @Override
    public int flush(Op op) {
        checkUsable();
        if (!drainBacklog()) {
            return NO_RESOURCE;
        }
        long id = nextRequestId++;
        if (beginFrame(FrameKind.FLUSH, id, 0, 0) < 0) {
            return NO_RESOURCE;
        }
        op.wireTag = id;
        awaiting.addLast(op);
        pump();
        return POSTED;
    }

    @Override
    public int maxBatchBytes() {
        return maxBatchBytes;
    }

    @Override
    public int poll(WireEvents sink) {
        if (!closed && !broken) {
            checkLiveness();
        }
        if (sendRetry) {
            sendRetry = false;
            pump();
        }
        if (recvRetry) {
            recvRetry = false;
            postReceive();
        }
        drainBacklog();
        return events.drainTo(sink);
    }

    @Override
    public Capabilities capabilities() {
        return caps;
    }

    @Override
    public String remoteAddress() {
        return remoteAddress;
    }

    /**
     * Fails everything posted (reported in the engine's next poll), cuts the write queue at a frame boundary, writes
     * the CLOSE frame the engine asked for, then shuts the socket's output once written. The socket is drained
     * until the peer's end of stream before the channel is released.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        // Operations still posted end with what broke the connection (a lost peer, a timeout), else as closed.
        TransportException cause = brokenBy != null ? brokenBy
                : new ResourceClosedException("endpoint closed before the operation completed");
        for (Op op : awaiting) {
            pushFailed(op, cause);
        }
        awaiting.clear();
        // Keep what the socket has started on: the unit in flight, and the payload whose header it carries.
        int keep = 0;
        Unit head = writes.peekFirst();
        if (head != null && (writeInFlight || head.sent > 0)) {
            keep = 1;
            if (head.staged && writes.size() > 1) {
                Iterator<Unit> it = writes.iterator();
                it.next();
                if (!it.next().staged) {
                    keep = 2;
                }
            }
        }
        int index = 0;
        for (Iterator<Unit> it = writes.iterator(); it.hasNext(); index++) {
            Unit u = it.next();
            for (Op op : u.ops) {
                pushFailed(op, cause);
            }
            u.ops.clear();
            if (index >= keep) {
                it.remove();
                if (u.staged) {
                    u.written = true; // never sent: its space is free once the units before it are
                } else {
                    recycle(u);
                }
            }
        }
        open = null;
        Response r;
        while ((r = backlog.pollFirst()) != null) {
            recycle(r);
        }
        freeStaging();
        if (broken || (!closeRequested && !peerCloseSeen)) {
            // Not a close either side asked for: the connection broke, or the engine ended the endpoint for a
            // violation it found itself. The peer learns at once instead of waiting for a CLOSE that will not come.
            abort();
        } else if (closeRequested) {
            beginFrame(FrameKind.MESSAGE, CLOSE_WORD, 0, 0);
        }
        if (unfedLength > 0 && !hardStopped) {
            // Reading was paused for the backlog, which is gone now: the rest is read (and dropped) until the end.
            try {
                feed();
            } catch (RuntimeException | OutOfMemoryError e) {
                unfedLength = 0;
                abort();
            }
            postReceive();
        }
        pump();
        maybeRelease();
        if (!released && loop.inLoop()) {
            closedAt = loop.coarseNanos();
            lingering = true;
            loop.register(linger);
        }
    }

    // =====================================================================================================
    // System layer completions
    // =====================================================================================================

    /** A completion of the channel (progress thread). */
    @Override
    public void onCompletion(int token, int result, int flags) {
        try {
            if ((token & 3) == T_RECV) {
                onReceive(result);
            } else {
                onSend(token >>> 2, result, flags);
            }
        } catch (RuntimeException | Error e) {
            // Whatever broke on the way (a response read from memory freed under its grant, a full heap): this
            // connection ends, typed, instead of staying wedged with its completion lost. Logged after: a log that
            // fails too (a process short of descriptors) must not keep the connection from ending.
            failReceivePath(e instanceof TransportException te ? te
                    : new ConnectionLostException("connection to " + remoteAddress + " failed: " + e, e));
            log.warn("connection to {} failed", remoteAddress, e);
        }
        maybeRelease();
    }

    /** Whether the channel may be released: closed, and nothing outstanding in the system layer. */
    public boolean isReleased() {
        return released;
    }

    /**
     * Forgets the connection at once (the transport is going away and its rings with it): releases every buffer
     * the wire still holds. The system layer closes the socket itself.
     */
    @Override
    public void abandon() {
        if (!closed) {
            close();
        }
        releaseBuffers(); // keeps what a receive still in the kernel may write into, until systemGone()
        writeInFlight = false;
        events.discard();
    }

    private void onReceive(int res) {
        recvInFlight = false;
        int direct = recvDirect;
        recvDirect = 0;
        recvFilled = res == recvPosted;
        if (res > 0) {
            liveness.heard();
            try {
                int intoPayload = Math.min(res, direct);
                if (intoPayload > 0) {
                    parser.filled(intoPayload, frameSink);
                }
                unfedOffset = 0;
                unfedLength = res - intoPayload;
                feed();
            } catch (TransportException e) {
                failReceivePath(e);
                return;
            } catch (RuntimeException | OutOfMemoryError e) {
                // A closed arena, a full heap: the connection cannot go on, but it must end, not wedge.
                failReceivePath(new ConnectionLostException("receiving from " + remoteAddress + " failed: " + e,
                        e));
                return;
            }
            if (!hardStopped) {
                postReceive(); // does nothing while unfed bytes wait for the backlog to drain
            }
            return;
        }
        eof = true;
        if (res == 0) {
            if (!peerCloseSeen) {
                breakConnection(new ConnectionLostException("peer closed the connection without CLOSE (end of "
                        + "stream) from " + remoteAddress, channel.provider(), 0, "EOF", null));
            }
        } else {
            String text = channel.describe(-res);
            breakConnection(new ConnectionLostException("receive from " + remoteAddress + " failed: " + text,
                    channel.provider(), -res, text, null));
            hardStop();
        }
        if (closed && !outputShut && !hardStopped && writes.isEmpty()) {
            shutdownOutput();
        }
    }

    /**
     * Feeds the parser what the last receive left unfed, frame by frame, stopping between frames while the response
     * backlog is full: the receive buffer is then not reposted, and the peer's further requests wait in the socket.
     */
    private void feed() {
        while (unfedLength > 0) {
            if (backlog.size() >= MAX_BACKLOG && !closed) {
                return;
            }
            int n = parser.feedFrame(receive, unfedOffset, unfedLength, frameSink);
            unfedOffset += n;
            unfedLength -= n;
        }
    }

    /** The connection cannot go on: it ends with {@code e}, and the peer sees it reset at once. */
    private void failReceivePath(TransportException e) {
        unfedLength = 0;
        breakConnection(e);
        abort();
    }

    private void onSend(int id, int res, int flags) {
        if ((flags & StreamChannel.F_NOTIF) != 0) {
            for (Unit u : stagedUnits) {
                if (u.id == id && u.notifs > 0) {
                    u.notifs--;
                    break;
                }
            }
            freeStaging();
            drainBacklog();
            return;
        }
        Unit u = writes.peekFirst();
        writeInFlight = false;
        if (u == null || u.id != id) {
            log.warn("send completion for unit {} does not match the head of the write queue", id);
            return;
        }
        if ((flags & StreamChannel.F_MORE) != 0) {
            u.notifs++; // only a single-unit zero-copy send has a notification to come
        }
        if (res < 0) {
            String text = channel.describe(-res);
            breakConnection(new ConnectionLostException("send to " + remoteAddress + " failed: " + text,
                    channel.provider(), -res, text, null));
            hardStop();
            return;
        }
        // The kernel took res bytes from the front: whole units complete, a short write leaves the rest of one
        // unit at the head for the next write.
        int left = res;
        while (left > 0 && (u = writes.peekFirst()) != null) {
            int take = Math.min(left, u.length - u.sent);
            u.sent += take;
            left -= take;
            if (u.sent < u.length) {
                break;
            }
            writes.pollFirst();
            u.written = true;
            for (int i = 0, n = u.ops.size(); i < n; i++) { // indexed: an iterator per write is garbage
                pushCompleted(u.ops.get(i), 0);
            }
            u.ops.clear();
            if (!u.staged) {
                recycle(u);
            }
        }
        freeStaging();
        drainBacklog();
        pump();
        liveness.writeProgressed(loop.coarseNanos(), writeInFlight);
        if (closed && writes.isEmpty() && !outputShut && !hardStopped) {
            shutdownOutput();
        }
    }

    /** Heartbeats, timeouts and trickled frames, on the loop's coarse clock (see {@link LivenessMonitor}). */
    private void checkLiveness() {
        long now = loop.coarseNanos();
        if (unfedLength > 0) {
            // This side stopped reading by choice (its backlog is full): the peer's bytes wait in the socket, so
            // its silence is this side's doing. A peer that does not read the answers trips the write timeout.
            liveness.heard();
            budget.pausedByUs();
        }
        if (budget.trickling(now, !parser.atFrameBoundary(), parser.framesCompleted(), parser.frameBytes())) {
            breakConnection(new ConnectionLostException("a frame from " + remoteAddress + " arrived slower than "
                    + budget.minReceiveRate() + " bytes/s (security.minReceiveRate): " + parser.frameBytes()
                    + " bytes in"));
            abort();
            return;
        }
        switch (liveness.check(now)) {
            case LivenessMonitor.SEND_HEARTBEAT -> {
                if (beginFrame(FrameKind.HEARTBEAT, 0, 0, 0) >= 0) {
                    pump();
                }
            }
            case LivenessMonitor.PEER_TIMEOUT -> {
                breakConnection(new ConnectionLostException("no sign of life from " + remoteAddress + " for "
                        + text(liveness.settings().peerTimeout()) + " (liveness.peerTimeout)"));
                abort();
            }
            case LivenessMonitor.WRITE_TIMEOUT -> {
                breakConnection(new ConnectionLostException("peer " + remoteAddress + " has not taken a write for "
                        + text(liveness.settings().writeTimeout()) + " (liveness.writeTimeout)"));
                abort();
            }
            default -> { }
        }
    }

    /**
     * A closed wire still draining its socket (nobody polls it any more): the peer must end its side within the
     * peer timeout, or the connection is reset, so a peer that never closes cannot keep a channel, its buffers and
     * its descriptor forever.
     */
    private int lingerPoll() {
        if (released) {
            stopLingering();
            return 0;
        }
        if (!hardStopped && loop.coarseNanos() - closedAt > liveness.settings().peerTimeout().toNanos()) {
            log.debug("{} did not finish closing within {}; resetting it", remoteAddress,
                    text(liveness.settings().peerTimeout()));
            abort();
            maybeRelease();
        }
        return 0;
    }

    private void stopLingering() {
        if (lingering && loop.inLoop()) {
            lingering = false;
            loop.deregister(linger);
        }
    }

    /** {@code 2s}, {@code 1500ms}. */
    private static String text(java.time.Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }

    // =====================================================================================================
    // Staging and writing
    // =====================================================================================================

    /**
     * Reserves a frame in the staging buffer: the header plus {@code stagedBytes} more, and writes the header.
     * Returns the staging offset just after the header, or -1 when the buffer is full.
     */
    private long beginFrame(int kind, long tag, int bodyLength, int stagedBytes) {
        long need = FrameHeader.BYTES + (long) stagedBytes;
        long at = alloc(need);
        if (at < 0) {
            return -1;
        }
        liveness.sent();
        if (open != null && at == open.start + open.length && open.length + need <= maxUnit) {
            open.length += (int) need;
        } else {
            Unit u = unit();
            u.staged = true;
            u.start = at;
            u.length = (int) need;
            open = u;
            writes.addLast(u);
            stagedUnits.addLast(u);
        }
        allocEnd = at + need;
        FrameHeader.write(staging, at, kind, tag, bodyLength);
        return at + FrameHeader.BYTES;
    }

    /**
     * Staging space is a ring: live units lie in {@code [allocStart, allocEnd)}, wrapping at the end. Returns where
     * {@code need} contiguous bytes are free, or -1.
     */
    private long alloc(long need) {
        if (stagedUnits.isEmpty()) {
            allocStart = 0;
            allocEnd = 0;
        }
        if (allocEnd >= allocStart) {
            if (stagingCapacity - allocEnd >= need) {
                return allocEnd;
            }
            return allocStart > need ? 0 : -1; // wrap; strictly greater so that full and empty stay distinct
        }
        return allocStart - allocEnd > need ? allocEnd : -1;
    }

    /**
     * Appends a payload sent from its own memory (its first {@code length} bytes); the header before it closes the
     * current unit.
     */
    private void appendPayload(MemorySegment payload, int length, Buffer owned, MemoryRegion pinned, Op sendOp) {
        open = null;
        Unit u = unit();
        u.staged = false;
        u.payload = payload;
        u.length = length;
        u.owned = owned;
        u.pinned = pinned;
        if (sendOp != null) {
            u.ops.add(sendOp);
        }
        writes.addLast(u);
    }

    /**
     * Starts the next write unless one is in flight: the head unit alone, or, where the channel gathers and more
     * units wait, the head and those behind it (up to {@link #GATHER_BYTES}) as one gather write. Gathering is what
     * keeps a large message from costing two round trips through the kernel (its staged header, then its payload),
     * and lets a backlog of them leave in one system call, as the bytes of one TCP stream.
     */
    private void pump() {
        if (writeInFlight || hardStopped || released) {
            return;
        }
        Unit u = writes.peekFirst();
        if (u == null) {
            return;
        }
        int token = (u.id << 2) | T_SEND;
        if (gatherBuffers.length > 1 && writes.size() > 1) {
            int count = 0;
            long bytes = 0;
            for (Unit w : writes) {
                if (count == gatherBuffers.length || (count > 0 && bytes >= GATHER_BYTES)) {
                    break;
                }
                int n = remaining(w, count++);
                bytes += n;
                if (n < w.length - w.sent) {
                    break; // the rest of this unit goes in the next write; nothing may overtake it
                }
            }
            boolean posted = channel.postGather(token, gatherBuffers, gatherOffsets, gatherLengths, count);
            java.util.Arrays.fill(gatherBuffers, 0, count, null);
            if (posted) {
                writeInFlight = true;
                liveness.writeStarted(loop.coarseNanos());
            } else {
                sendRetry = true;
            }
            return;
        }
        int n = remaining(u, 0);
        boolean posted = channel.postSend(token, gatherBuffers[0], gatherOffsets[0], n, u.staged);
        gatherBuffers[0] = null;
        if (posted) {
            writeInFlight = true;
            liveness.writeStarted(loop.coarseNanos());
        } else {
            sendRetry = true;
        }
    }

    /**
     * Puts the unwritten rest of {@code u} into gather part {@code part} and returns its length; a staged unit being
     * written is sealed (later frames open the next one).
     */
    private int remaining(Unit u, int part) {
        if (u == open) {
            open = null;
        }
        // At most GATHER_BYTES per write: a write's completion is the only progress the liveness check sees, so a
        // 16 MiB payload over a slow link goes out as many writes, each timed on its own, not as one that looks stuck.
        int n = (int) Math.min(u.length - u.sent, GATHER_BYTES);
        gatherBuffers[part] = u.staged ? staging : u.payload;
        gatherOffsets[part] = u.staged ? u.start + u.sent : u.sent;
        gatherLengths[part] = n;
        return n;
    }

    /** Frees staging space of units that are written and no longer referenced by a zero-copy send. */
    private void freeStaging() {
        Unit u;
        while ((u = stagedUnits.peekFirst()) != null && u.written && u.notifs == 0) {
            stagedUnits.pollFirst();
            recycle(u);
        }
        Unit next = stagedUnits.peekFirst();
        if (next == null) {
            allocStart = 0;
            allocEnd = 0;
        } else {
            allocStart = next.start;
        }
    }

    private Unit unit() {
        Unit u = freeUnits.pollFirst();
        if (u == null) {
            u = new Unit();
        }
        u.id = nextUnitId = (nextUnitId + 1) & ID_MASK;
        return u;
    }

    private void recycle(Unit u) {
        responseBytes -= u.responseBytes;
        if (u.owned != null) {
            u.owned.release();
        }
        if (u.pinned != null) {
            MEMORY.unpin(u.pinned);
        }
        u.clear();
        freeUnits.addLast(u);
    }

    // =====================================================================================================
    // Frames arriving
    // =====================================================================================================

    /** Where the parser's frames go: credits, grants and the FIFO of awaited responses are checked here. */
    private final class Frames implements FrameParser.Sink {

        @Override
        public Buffer messageBuffer(long word, int length) {
            if (closed) {
                return null; // still draining the socket after close: nobody will read it
            }
            if (credits <= 0) {
                throw new CreditProtocolException("peer sent a message without a credit");
            }
            if (ControlWord.type(word) == ControlWord.DATA) {
                credits--;
            }
            if (length <= FIRST_PIECE || budget.commitAhead(length)) {
                return memory.allocate(length).length(length);
            }
            return memory.allocate(FIRST_PIECE); // its memory follows its bytes: growMessage
        }

        @Override
        public Buffer growMessage(int filled, int length) {
            return memory.allocate((int) Math.min(length, 2L * filled));
        }

        @Override
        public void message(long word, Buffer payload) {
            int type = ControlWord.type(word);
            if (type == ControlWord.CLOSE) {
                peerCloseSeen = true;
            }
            if (payload != null) {
                budget.frameDone();
                budget.delivered(payload.length());
            }
            if (closed) {
                release(payload);
                return;
            }
            if (type == ControlWord.CREDIT && events.mergeCredits(word)) {
                return; // consecutive grants become one arrival
            }
            if (type == ControlWord.BATCH) {
                int n = BatchFraming.count(payload.capacitySegment(), payload.length());
                if (n < 0 || n > credits) {
                    payload.release();
                    throw new CreditProtocolException(n < 0 ? "malformed coalesced frame"
                            : "peer sent " + n + " coalesced messages with " + credits + " credits");
                }
                credits -= n;
            }
            pushReceived(word, payload);
        }

        @Override
        public MemorySegment putTarget(long id, MemorySegment request, long dataLength) {
            if (closed) {
                return null;
            }
            Grant g = MEMORY.tryResolveRemote(memory, RmaRequest.key(request), RmaRequest.address(request), dataLength,
                    Access.REMOTE_WRITE, StreamWire.this);
            if (g == null) {
                return null;
            }
            currentPut = g;
            return g.window().asSlice(g.offsetOf(RmaRequest.address(request)), dataLength);
        }

        @Override
        public boolean putStillGranted() {
            return currentPut != null && currentPut.isOpen();
        }

        @Override
        public void putDone(long id, boolean applied) {
            releasePut();
            if (!closed) {
                respond(applied ? FrameKind.RMA_ACK : FrameKind.RMA_ERR, id, 0, 0, 0, 0);
            }
        }

        @Override
        public void request(int kind, long id, MemorySegment request) {
            if (closed) {
                return;
            }
            long address = RmaRequest.address(request);
            long key = RmaRequest.key(request);
            if (kind == FrameKind.GET) {
                long len = RmaRequest.length(request);
                if (len > caps.maxRmaSize()) {
                    respond(FrameKind.RMA_ERR, id, 0, 0, 0, 0);
                } else {
                    // Checked and copied when the response is written (tryRespond), in order behind earlier ones.
                    respond(FrameKind.GET_RESP, id, 0, key, address, len);
                }
                return;
            }
            long previous;
            try {
                previous = atomic(request, key, address);
            } catch (RemoteAccessException refused) {
                respond(FrameKind.RMA_ERR, id, 0, 0, 0, 0);
                return;
            }
            respond(FrameKind.ATOMIC_RESP, id, previous, 0, 0, 0);
        }

        @Override
        public MemorySegment getResponseTarget(long id, long length) {
            if (closed) {
                return null;
            }
            Op op = awaiting.peekFirst();
            if (op == null || op.wireTag != id || op.kind() != OpKind.GET || op.local().length() != length) {
                throw new CreditProtocolException("unexpected GET_RESP of " + length + " bytes for request " + id);
            }
            return op.local().segment();
        }

        @Override
        public void frame(int kind, long tag, MemorySegment payload) {
            switch (kind) {
                case FrameKind.FLUSH -> respondUnlessClosed(FrameKind.FLUSH_ACK, tag);
                case FrameKind.HEARTBEAT -> respondUnlessClosed(FrameKind.HEARTBEAT_ACK, tag);
                case FrameKind.HEARTBEAT_ACK -> { } // being heard is all it is for
                default -> onResponse(kind, tag, payload);
            }
        }
    }

    private void respondUnlessClosed(int kind, long tag) {
        if (!closed) {
            respond(kind, tag, 0, 0, 0, 0);
        }
    }

    /** Lets go of the grant a put was writing into (its data is complete, discarded, or the wire is gone). */
    private void releasePut() {
        Grant g = currentPut;
        if (g != null) {
            currentPut = null;
            MEMORY.unpin(g);
        }
    }

    private long atomic(MemorySegment req, long key, long address) {
        int width = RmaRequest.width(req);
        int which = RmaRequest.atomic(req);
        if ((width != 4 && width != 8) || which < 0 || which >= AtomicOp.values().length
                || (address & (width - 1)) != 0) {
            throw new RemoteAccessException(MemoryDomain.REFUSED);
        }
        AtomicOp op = AtomicOp.values()[which];
        long operand = RmaRequest.operand(req);
        long compare = RmaRequest.compare(req);
        Grant target = MEMORY.tryResolveRemote(memory, key, address, width, Access.REMOTE_ATOMIC, this);
        if (target == null) {
            throw new RemoteAccessException(MemoryDomain.REFUSED);
        }
        try {
            return op.applyTo(target.window(), target.offsetOf(address), width, operand, compare);
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new RemoteAccessException(MemoryDomain.REFUSED, e);
        } finally {
            MEMORY.unpin(target);
        }
    }

    /** A response for the oldest request waiting for one; {@code payload} is valid during the call only. */
    private void onResponse(int kind, long id, MemorySegment payload) {
        Op op = awaiting.peekFirst();
        if (op == null || op.wireTag != id || !answers(op.kind(), kind)) {
            if (!closed) {
                throw new CreditProtocolException("unexpected " + FrameKind.name(kind) + " for request " + id);
            }
            return;
        }
        awaiting.pollFirst();
        switch (kind) {
            case FrameKind.RMA_ACK, FrameKind.FLUSH_ACK, FrameKind.GET_RESP -> pushCompleted(op, 0);
            case FrameKind.ATOMIC_RESP -> pushCompleted(op, payload.get(U64, 0));
            default -> { // RMA_ERR: the peer's text is kept as the native message, never trusted as ours
                String text = new String(payload.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
                pushFailed(op, new RemoteAccessException(MemoryDomain.REFUSED, channel.provider(), 0, text, null));
            }
        }
    }

    private static boolean answers(OpKind request, int response) {
        return switch (request) {
            case PUT -> response == FrameKind.RMA_ACK || response == FrameKind.RMA_ERR;
            case GET -> response == FrameKind.GET_RESP || response == FrameKind.RMA_ERR;
            case ATOMIC -> response == FrameKind.ATOMIC_RESP || response == FrameKind.RMA_ERR;
            case FLUSH -> response == FrameKind.FLUSH_ACK;
            default -> false;
        };
    }

    /**
     * Sends a response in order behind earlier ones: a bare frame, an atomic's previous {@code value}, or a get's
     * bytes ({@code length} of them at {@code address} under {@code key}), checked against the grants and copied
     * when the response is written.
     */
    private void respond(int kind, long id, long value, long key, long address, long length) {
        if (backlog.isEmpty() && tryRespond(kind, id, value, key, address, length)) {
            pump();
            return;
        }
        Response r = freeResponses.pollFirst();
        if (r == null) {
            r = new Response();
        }
        r.kind = kind;
        r.id = id;
        r.value = value;
        r.key = key;
        r.address = address;
        r.length = length;
        backlog.addLast(r);
    }

    /**
     * Writes one response into the stream, or returns false to wait for room. A get's bytes are copied out of the
     * granted window (into staging, or into a pooled buffer of the transport's own for a large one) while the grant
     * is pinned for the copy only: what goes out never depends on the owner keeping memory alive after it closed the
     * region, and the copies waiting to be written are bounded ({@link #MAX_RESPONSE_BYTES}).
     */
    private boolean tryRespond(int kind, long id, long value, long key, long address, long length) {
        if (kind == FrameKind.GET_RESP) {
            return tryRespondGet(id, key, address, (int) length);
        }
        int len = kind == FrameKind.ATOMIC_RESP ? 8 : kind == FrameKind.RMA_ERR ? REFUSED.length : 0;
        long at = beginFrame(kind, id, len, len);
        if (at < 0) {
            return false;
        }
        if (kind == FrameKind.ATOMIC_RESP) {
            staging.set(U64, at, value);
        } else if (kind == FrameKind.RMA_ERR) {
            MemorySegment.copy(REFUSED, 0, staging, ValueLayout.JAVA_BYTE, at, REFUSED.length);
        }
        return true;
    }

    private boolean tryRespondGet(long id, long key, long address, int len) {
        boolean copy = len <= copyLimit;
        if (!copy && responseBytes > 0 && responseBytes + len > MAX_RESPONSE_BYTES) {
            return false; // earlier answers are still being written: wait, reading requests stays paused behind
        }
        if (alloc(FrameHeader.BYTES + (long) (copy ? len : 0)) < 0) {
            return false;
        }
        Grant g = MEMORY.tryResolveRemote(memory, key, address, len, Access.REMOTE_READ, this);
        if (g == null) {
            return tryRespond(FrameKind.RMA_ERR, id, 0, 0, 0, 0);
        }
        try {
            long at = beginFrame(FrameKind.GET_RESP, id, len, copy ? len : 0);
            if (copy) {
                MemorySegment.copy(g.window(), g.offsetOf(address), staging, at, len);
            } else {
                Buffer b = memory.allocate(len);
                MemorySegment.copy(g.window(), g.offsetOf(address), b.capacitySegment(), 0, len);
                appendPayload(b.capacitySegment(), len, b, null, null);
                writes.peekLast().responseBytes = len;
                responseBytes += len;
            }
        } finally {
            MEMORY.unpin(g);
        }
        return true;
    }

    /** Sends waiting responses; true when none is left waiting. Resumes reading once the backlog has room. */
    private boolean drainBacklog() {
        if (backlog.isEmpty()) {
            return true;
        }
        Response r;
        boolean any = false;
        while ((r = backlog.peekFirst()) != null && !closed
                && tryRespond(r.kind, r.id, r.value, r.key, r.address, r.length)) {
            backlog.pollFirst();
            recycle(r);
            any = true;
        }
        if (any) {
            pump();
            if (unfedLength > 0 && backlog.size() < MAX_BACKLOG && !recvInFlight && !hardStopped) {
                try {
                    feed();
                } catch (TransportException e) {
                    failReceivePath(e);
                    return backlog.isEmpty();
                } catch (RuntimeException | OutOfMemoryError e) {
                    failReceivePath(new ConnectionLostException("receiving from " + remoteAddress + " failed: " + e,
                            e));
                    return backlog.isEmpty();
                }
                if (unfedLength == 0) {
                    postReceive();
                }
            }
        }
        return backlog.isEmpty();
    }

    private void recycle(Response r) {
        freeResponses.addLast(r);
    }

    // =====================================================================================================
    // Lifecycle
    // =====================================================================================================

    private void checkUsable() {
        if (closed) {
            throw new ResourceClosedException("endpoint is closed");
        }
        if (broken) {
            throw new ConnectionLostException("connection to " + remoteAddress + " is broken");
        }
    }

    private void postReceive() {
        if (recvInFlight || eof || hardStopped || released || unfedLength > 0) {
            return; // unfed bytes still sit in the receive buffer: reading resumes once they are parsed
        }
        // The rest of a large payload is received straight into its destination, one copy (the kernel's) instead
        // of two, and only a little into the receive buffer after it: enough for the next header and small frames,
        // little of the next large payload (which then goes the same way). Smaller remainders, and everything on
        // channels without scatter receives, go through the receive buffer.
        int direct = scatterReceives && parser.mayReceiveDirect(frameSink) ? parser.payloadRemaining() : 0;
        if (direct > 0 && parser.inPutBody()) {
            direct = putDirect(direct);
        }
        boolean posted = direct >= DIRECT_RECEIVE_MIN
                ? channel.postScatterReceive(T_RECV, parser.payloadTarget(), parser.payloadFilled(), direct,
                        scatterTail)
                : channel.postReceive(T_RECV, receive);
        if (posted) {
            recvInFlight = true;
            recvDirect = direct >= DIRECT_RECEIVE_MIN ? direct : 0;
            recvPosted = recvDirect > 0 ? recvDirect + scatterTail.byteSize() : receive.byteSize();
        } else {
            recvRetry = true;
        }
    }

    /**
     * How much of a put's remaining {@code direct} bytes the next receive may take straight into the granted window.
     * A receive the kernel holds writes its memory whenever the peer's bytes arrive, and a revocation cannot take it
     * back, so one posted into a window and left waiting would let the peer write there after the grant was
     * revoked, at a time of its choosing. A receive into the window is therefore posted only right after one that
     * took everything it was given: the peer is streaming and the socket still holds data, so the kernel fills it
     * at once, when it is submitted, just after the revocation check ({@link FrameParser#mayReceiveDirect}). When a
     * receive came back short, the socket ran dry and the next one waits in the receive buffer, whose bytes are
     * copied into the window only after another check. Large puts still skip the second copy where it matters: a
     * receiver that cannot keep up always finds data waiting; a copy happens only when it is ahead of the peer. A
     * peer that pauses exactly where a receive filled up can still hold one receive into the window, so each takes
     * at most {@link #PUT_DIRECT_CHUNK} bytes; a put whose grant was revoked while such a receive was in the kernel
     * is answered as refused ({@link FrameParser#filled}).
     */
    private int putDirect(int direct) {
        return recvFilled ? Math.min(direct, PUT_DIRECT_CHUNK) : 0;
    }

    private void breakConnection(TransportException cause) {
        if (broken || closed) {
            return;
        }
        broken = true;
        brokenBy = cause;
        events.broken(cause);
    }

    /** Stops all I/O: what is posted completes with an error, nothing new is posted. */
    private void hardStop() {
        if (hardStopped) {
            return;
        }
        hardStopped = true;
        channel.shutdown(true);
    }

    /** As {@link #hardStop()}, and the socket's last close resets the connection (RST) instead of ending it cleanly. */
    private void abort() {
        if (hardStopped) {
            return;
        }
        hardStopped = true;
        channel.abort();
    }

    private void shutdownOutput() {
        outputShut = true;
        channel.shutdown(false);
    }

    /** Releases the channel once closed and nothing is outstanding in the system layer. */
    private void maybeRelease() {
        if (released || !closed || writeInFlight || recvInFlight) {
            return;
        }
        if (!eof && !hardStopped) {
            return; // still draining until the peer's end of stream
        }
        for (Unit u : stagedUnits) {
            if (u.notifs > 0) {
                return;
            }
        }
        releaseBuffers();
        channel.release();
        stopLingering();
    }

    /** Marks the wire released and gives back every buffer it still holds (queued writes, parser state). */
    private void releaseBuffers() {
        released = true;
        for (Unit u : writes) {
            if (!u.staged) {
                recycle(u);
            }
        }
        writes.clear();
        stagedUnits.clear();
        if (!(recvInFlight && recvDirect > 0)) {
            parser.close();
            budget.close();
            releasePut();
        } // else the kernel may still write into the payload or the window: systemGone() releases them
    }

    /**
     * The system layer is gone (ring closed), so no posted receive can write any more: releases a payload that an
     * abandoned receive was still aimed at.
     */
    @Override
    public void systemGone() {
        recvInFlight = false;
        recvDirect = 0;
        parser.close();
        budget.close();
        releasePut();
    }

    private static void release(Buffer b) {
        if (b != null) {
            b.release();
        }
    }

    // ---- engine events ----

    private void pushCompleted(Op op, long value) {
        events.completed(op, value);
    }

    private void pushFailed(Op op, TransportException error) {
        events.failed(op, error);
    }

    private void pushReceived(long word, Buffer payload) {
        events.received(word, payload);
    }

    /** A run of bytes written with one send (repeated after a short write). */
    private static final class Unit {
        int id;
        /** In the staging buffer at {@code start}; else {@code payload}. */
        boolean staged;
        long start;
        int length;
        int sent;
        boolean written;
        /** Zero-copy notifications still to come for this unit's sends. */
        int notifs;
        /** Sends that complete when this unit is written. */
        final ArrayList<Op> ops = new ArrayList<>(4);
        MemorySegment payload;
        Buffer owned;
        MemoryRegion pinned;
        /** Bytes of a get answer this unit carries (counted in {@code responseBytes} until it is written). */
        int responseBytes;

        void clear() {
            staged = false;
            start = 0;
            length = 0;
            sent = 0;
            written = false;
            notifs = 0;
            ops.clear();
            payload = null;
            owned = null;
            pinned = null;
            responseBytes = 0;
        }
    }

    /** A response waiting for staging space (recycled). */
    private static final class Response {
        int kind;
        long id;
        long value;
        long key;
        long address;
        long length;
    }
}
