package dev.rivulet.rio.stream;

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
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.liveness.LivenessSettings;
import dev.rivulet.core.loop.ProgressLoop;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.remote.SoftwareTarget;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.MemorySegment;

/**
 * One connection over a byte-stream socket, for any {@link StreamChannel} system layer: the {@link Wire} the engine
 * posts to, and the connection's life from the first receive to the channel's release.
 *
 * <h2>Parts</h2>
 * {@link StreamWriter} is the send side (frames staged and coalesced into units, large payloads sent from their own
 * memory, one write in flight), {@link StreamReader} the receive side (one receive at a time, the {@link FrameParser}
 * deciding from each header where its payload may go, credits and the receive budget checked before memory is
 * committed), {@link StreamRequests} the initiator side of one-sided operations (requests and the FIFO of awaited
 * responses) and {@link StreamResponder} the target side (the peer's requests carried out by the connection's
 * {@link SoftwareTarget}, responses written in request order, bounded). This class wires them together and keeps
 * what ends a connection.
 *
 * <h2>Failure</h2>
 * A malformed or over-long frame, a message without credit, an unexpected response, or any exception on the receive
 * or send path breaks the connection at once with a typed error ({@link WireFailures}) and resets the socket (the
 * channel's {@link StreamChannel#abort()}: SO_LINGER 0 and shutdown both ways), so the peer sees the close at once;
 * so does a close the engine makes for a violation it found itself. A closed wire that drains its socket until the
 * peer's end of stream is reset if that has not come within the peer timeout ({@link Linger}). Liveness
 * ({@link WireLiveness}): a side that sent nothing for a heartbeat interval sends {@link FrameKind#HEARTBEAT},
 * answered by {@link FrameKind#HEARTBEAT_ACK}; nothing heard for the peer timeout, or a write the peer has not taken
 * for the write timeout, ends the connection with {@link ConnectionLostException}.
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

    private static final Logger log = LoggerFactory.getLogger(StreamWire.class);

    /** What a peer breaking the frame protocol is reported as (see {@link WireFailures#typed}). */
    private static final String PROTOCOL = "stream";
    private static final long CLOSE_WORD = ControlWord.encode(ControlWord.CLOSE, 0);
    /** Bytes of large get answers copied out and not yet written, beyond which answering waits. */
    public static final long MAX_RESPONSE_BYTES = StreamResponder.MAX_RESPONSE_BYTES;

    private final StreamChannel channel;
    private final Capabilities caps;
    private final String remoteAddress;
    private final int copyLimit;
    private final int maxBatchBytes;
    private final ProgressLoop loop;
    private final LivenessMonitor liveness;
    private final WireLiveness livenessCheck;
    private final WireEventQueue events = new WireEventQueue();
    private final WireState state = new WireState();
    private final StreamWriter writer;
    private final StreamRequests requests;
    private final StreamResponder responder;
    private final StreamReader reader;
    /** Closed but not yet released: the loop polls it until it is. */
    private final Linger linger;

    private boolean closeRequested;
    private boolean outputShut;
    private boolean hardStopped;
    private boolean released;

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
        this.livenessCheck = new WireLiveness(this.liveness, remoteAddress, this::sendHeartbeat);
        this.linger = new Linger(loop, liveness.peerTimeout(), this::lingerPoll);
        this.caps = caps;
        this.remoteAddress = remoteAddress;
        this.maxBatchBytes = maxBatchBytes;
        this.writer = new StreamWriter(channel, loop, this.liveness, events);
        this.copyLimit = (int) Math.min(copyLimit, writer.maxUnit() - FrameHeader.BYTES - RmaRequest.BYTES);
        this.requests = new StreamRequests(writer, events, channel.provider(), this.copyLimit);
        this.responder = new StreamResponder(new SoftwareTarget(memory, this), writer, memory, caps.maxRmaSize(),
                this.copyLimit);
        this.reader = new StreamReader(channel, state, events, memory, budget, responder, requests,
                new FrameParser(caps.maxMessageSize(), maxBatchBytes, caps.maxRmaSize()));
    }

    /** Starts receiving; called once on the progress thread after the channel is attached. */
    @Override
    public void start() {
        reader.post();
    }

    // =====================================================================================================
    // Wire
    // =====================================================================================================

    @Override
    public int send(long controlWord, Op op) {
        state.ensureUsable(remoteAddress);
        if (op == null && ControlWord.type(controlWord) == ControlWord.CLOSE) {
            // Written by close(), after the stream was cut at a frame boundary, as its very last frame.
            closeRequested = true;
            return DONE;
        }
        if (!drainBacklog()) {
            return NO_RESOURCE;
        }
        if (op == null) {
            if (writer.beginFrame(FrameKind.MESSAGE, controlWord, 0, 0) < 0) {
                return NO_RESOURCE;
            }
            writer.pump();
            return DONE;
        }
        Buffer b = op.buffer();
        Buffer body = op.body();
        if (body != null) {
            return sendInTwoParts(controlWord, op, b, body);
        }
        int len = b.length();
        boolean copy = len <= copyLimit;
        long at = writer.beginFrame(FrameKind.MESSAGE, controlWord, len, copy ? len : 0);
        if (at < 0) {
            return NO_RESOURCE;
        }
        if (copy) {
            MemorySegment.copy(b.capacitySegment(), 0, writer.staging(), at, len);
            writer.completesWithFrame(op);
        } else {
            writer.appendPayload(b.capacitySegment(), len, b.retain(), null, op);
        }
        writer.pump();
        return POSTED;
    }

    /**
     * A message whose bytes continue in {@code body}: a small one is copied into the staging buffer part after part;
     * a larger one has its first part staged behind the frame header (or written from its own memory when that part
     * is large too) and its body written from the body's memory, in the same gather write where the channel gathers.
     */
    private int sendInTwoParts(long controlWord, Op op, Buffer head, Buffer body) {
        int len = head.length() + body.length();
        boolean copy = len <= copyLimit;
        boolean stageHead = copy || head.length() <= copyLimit;
        long at = writer.beginFrame(FrameKind.MESSAGE, controlWord, len, copy ? len : stageHead ? head.length() : 0);
        if (at < 0) {
            return NO_RESOURCE;
        }
        if (stageHead) {
            MemorySegment.copy(head.capacitySegment(), 0, writer.staging(), at, head.length());
        } else {
            writer.appendPayload(head.capacitySegment(), head.length(), head.retain(), null, null);
        }
        if (copy) {
            MemorySegment.copy(body.capacitySegment(), 0, writer.staging(), at + head.length(), body.length());
            writer.completesWithFrame(op);
        } else {
            writer.appendPayload(body.capacitySegment(), body.length(), body.retain(), null, op);
        }
        writer.pump();
        return POSTED;
    }

    /** A message's two parts go into one frame: copied into the staging buffer, or written from their memory. */
    @Override
    public boolean gathers() {
        return true;
    }

    @Override
    public void attach(CreditGate gate) {
        reader.attach(gate);
    }

    @Override
    public void postReceives(int count) {
        // Payload buffers are taken from the pool as messages arrive, sized to them, and only for messages the
        // gate admits: the credits are counted there.
    }

    @Override
    public int rma(Op op) {
        state.ensureUsable(remoteAddress);
        return drainBacklog() ? requests.post(op) : NO_RESOURCE;
    }

    @Override
    public int flush(Op op) {
        state.ensureUsable(remoteAddress);
        return drainBacklog() ? requests.flush(op) : NO_RESOURCE;
    }

    @Override
    public int maxBatchBytes() {
        return maxBatchBytes;
    }

    @Override
    public int poll(WireEvents sink) {
        if (!state.isClosed() && !state.isBroken()) {
            checkLiveness();
        }
        writer.retryIfRefused();
        reader.retryIfRefused();
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
        if (!state.close()) {
            return;
        }
        // Operations still posted end with what broke the connection (a lost peer, a timeout), else as closed.
        TransportException cause = state.closeCause();
        requests.failAll(cause);
        writer.cutAtFrameBoundary(cause);
        responder.clear();
        if (state.isBroken() || (!closeRequested && !reader.peerCloseSeen())) {
            // Not a close either side asked for: the connection broke, or the engine ended the endpoint for a
            // violation it found itself. The peer learns at once instead of waiting for a CLOSE that will not come.
            abort();
        } else if (closeRequested) {
            writer.beginFrame(FrameKind.MESSAGE, CLOSE_WORD, 0, 0);
        }
        if (reader.paused() && !hardStopped) {
            // Reading was paused for the backlog, which is gone now: the rest is read (and dropped) until the end.
            try {
                reader.feed();
            } catch (RuntimeException | OutOfMemoryError e) {
                reader.dropUnfed();
                abort();
            }
            reader.post();
        }
        writer.pump();
        maybeRelease();
        if (!released) {
            linger.start();
        }
    }

    // =====================================================================================================
    // System layer completions
    // =====================================================================================================

    /** A completion of the channel (progress thread). */
    @Override
    public void onCompletion(int token, int result, int flags) {
        try {
            if ((token & 3) == StreamReader.T_RECV) {
                onReceive(result);
            } else {
                onSend(token >>> 2, result, flags);
            }
        } catch (RuntimeException | Error e) {
            // Whatever broke on the way (a response read from memory freed under its grant, a full heap): this
            // connection ends, typed, instead of staying wedged with its completion lost. Logged after: a log that
            // fails too (a process short of descriptors) must not keep the connection from ending.
            failReceivePath(WireFailures.typed(e, PROTOCOL, "connection to", remoteAddress));
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
        if (!state.isClosed()) {
            close();
        }
        releaseBuffers(); // keeps what a receive still in the kernel may write into, until systemGone()
        writer.forgetWriteInFlight();
        events.discard();
    }

    private void onReceive(int res) {
        reader.completed(res);
        if (res > 0) {
            liveness.heard();
            try {
                reader.received(res);
            } catch (RuntimeException | OutOfMemoryError e) {
                // A frame that breaks the protocol, a closed arena, a full heap: the connection cannot go on, but it
                // must end, not wedge.
                failReceivePath(WireFailures.typed(e, PROTOCOL, "receiving from", remoteAddress));
                return;
            }
            if (!hardStopped) {
                reader.post(); // does nothing while unfed bytes wait for the backlog to drain
            }
            return;
        }
        if (res == 0) {
            if (!reader.peerCloseSeen()) {
                breakConnection(new ConnectionLostException("peer closed the connection without CLOSE (end of "
                        + "stream) from " + remoteAddress, channel.provider(), 0, "EOF", null));
            }
        } else {
            String text = channel.describe(-res);
            breakConnection(new ConnectionLostException("receive from " + remoteAddress + " failed: " + text,
                    channel.provider(), -res, text, null));
            hardStop();
        }
        shutdownOutputOnceWritten();
    }

    /** The connection cannot go on: it ends with {@code e}, and the peer sees it reset at once. */
    private void failReceivePath(TransportException e) {
        reader.dropUnfed();
        breakConnection(e);
        abort();
    }

    private void onSend(int id, int res, int flags) {
        int outcome = writer.onSend(id, res, flags);
        if (outcome == StreamWriter.STRAY) {
            return;
        }
        if (outcome == StreamWriter.FAILED) {
            String text = channel.describe(-res);
            breakConnection(new ConnectionLostException("send to " + remoteAddress + " failed: " + text,
                    channel.provider(), -res, text, null));
            hardStop();
            return;
        }
        drainBacklog();
        if ((flags & StreamChannel.F_NOTIF) == 0) {
            writer.writeProgressed();
            shutdownOutputOnceWritten();
        }
    }

    /** A closed wire shuts its output once everything queued, the CLOSE frame last, is written. */
    private void shutdownOutputOnceWritten() {
        if (state.isClosed() && !outputShut && !hardStopped && writer.idle()) {
            outputShut = true;
            channel.shutdown(false);
        }
    }

    /** Heartbeats, timeouts and trickled frames, on the loop's coarse clock (see {@link LivenessMonitor}). */
    private void checkLiveness() {
        long now = loop.coarseNanos();
        if (reader.paused()) {
            // This side stopped reading by choice (its backlog is full): the peer's bytes wait in the socket, so
            // its silence is this side's doing. A peer that does not read the answers trips the write timeout.
            reader.pausedByUs(liveness);
        }
        TransportException dead = reader.trickled(now, remoteAddress);
        if (dead == null) {
            dead = livenessCheck.check(now);
        }
        if (dead != null) {
            breakConnection(dead);
            abort();
        }
    }

    private void sendHeartbeat() {
        if (writer.beginFrame(FrameKind.HEARTBEAT, 0, 0, 0) >= 0) {
            writer.pump();
        }
    }

    /**
     * A closed wire still draining its socket (nobody polls it any more): the peer must end its side within the
     * peer timeout, or the connection is reset, so a peer that never closes cannot keep a channel, its buffers and
     * its descriptor forever.
     */
    private int lingerPoll(boolean overdue) {
        if (released) {
            linger.stop();
            return 0;
        }
        if (!hardStopped && overdue) {
            log.debug("{} did not finish closing within {}; resetting it", remoteAddress,
                    WireLiveness.text(liveness.settings().peerTimeout()));
            abort();
            maybeRelease();
        }
        return 0;
    }

    /** Sends waiting responses; true when none is left waiting. Resumes reading once the backlog has room. */
    private boolean drainBacklog() {
        if (!responder.backlogged()) {
            return true;
        }
        if (responder.drain(state.isClosed())) {
            writer.pump();
            if (reader.mayResume()) {
                try {
                    reader.feed();
                } catch (RuntimeException | OutOfMemoryError e) {
                    failReceivePath(WireFailures.typed(e, PROTOCOL, "receiving from", remoteAddress));
                    return !responder.backlogged();
                }
                if (!reader.paused()) {
                    reader.post();
                }
            }
        }
        return !responder.backlogged();
    }

    // =====================================================================================================
    // Lifecycle
    // =====================================================================================================

    private void breakConnection(TransportException cause) {
        if (state.breakWith(cause)) {
            events.broken(cause);
        }
    }

    /** Stops all I/O: what is posted completes with an error, nothing new is posted. */
    private void hardStop() {
        if (stopIo()) {
            channel.shutdown(true);
        }
    }

    /** As {@link #hardStop()}, and the socket's last close resets the connection (RST) instead of ending it cleanly. */
    private void abort() {
        if (stopIo()) {
            channel.abort();
        }
    }

    private boolean stopIo() {
        if (hardStopped) {
            return false;
        }
        hardStopped = true;
        writer.stop();
        reader.stop();
        return true;
    }

    /** Releases the channel once closed and nothing is outstanding in the system layer. */
    private void maybeRelease() {
        if (released || !state.isClosed() || writer.writeInFlight() || reader.inFlight()) {
            return;
        }
        if (!reader.endOfStream() && !hardStopped) {
            return; // still draining until the peer's end of stream
        }
        if (writer.notificationsPending()) {
            return;
        }
        releaseBuffers();
        channel.release();
        linger.stop();
    }

    /** Marks the wire released and gives back every buffer it still holds (queued writes, parser state). */
    private void releaseBuffers() {
        released = true;
        writer.release();
        reader.release();
    }

    /**
     * The system layer is gone (ring closed), so no posted receive can write any more: releases a payload that an
     * abandoned receive was still aimed at.
     */
    @Override
    public void systemGone() {
        reader.systemGone();
    }
}
