package dev.rivulet.rio.stream;

import dev.rivulet.core.admission.ReceiveBudget;
import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.credit.CreditGate;
import dev.rivulet.core.engine.LivenessMonitor;
import dev.rivulet.core.engine.WireEventQueue;
import dev.rivulet.core.engine.wire.WireState;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;

import java.lang.foreign.MemorySegment;

/**
 * The receive side of a {@link StreamWire}: one receive at a time into the registered receive buffer, fed to the
 * {@link FrameParser}, whose frames are dispatched here.
 *
 * <p>The parser decides from each header alone where its payload may go, so a peer's header never makes this side
 * allocate or write on its word: a message gets a pooled buffer of the transport's domain only when the connection's
 * {@link CreditGate} admitted it (the peer held a credit for it), and all of it at once only within the
 * connection's {@link ReceiveBudget} (else a buffer that grows as the bytes arrive, from
 * {@link ReceiveBudget#FIRST_PIECE}); a
 * frame trickled to hold that memory ends the connection ({@code security.minReceiveRate}). Where the channel can,
 * the rest of a payload of {@link #DIRECT_RECEIVE_MIN} or more is received straight into its destination (no second
 * copy) by a scatter receive that continues into a little of the receive buffer; for a put only while the peer keeps
 * the socket full ({@link #putDirect}). While the responder's backlog is full, the bytes of the last receive wait
 * unparsed and no receive is posted, so the peer's further requests wait in the socket.
 */
final class StreamReader {

    /** Token bits of a receive completion. */
    static final int T_RECV = 1;
    /** A payload remainder at least this large is received straight into its buffer where the channel can. */
    private static final int DIRECT_RECEIVE_MIN = 16 << 10;
    /** How much of the receive buffer a scatter receive fills after the payload's rest. */
    private static final long SCATTER_TAIL = 4 << 10;
    /** The most of a put's data one receive straight into the granted window may take (see {@link #putDirect}). */
    private static final int PUT_DIRECT_CHUNK = 256 << 10;

    private final StreamChannel channel;
    private final WireState state;
    private final WireEventQueue events;
    private final MemoryDomain memory;
    /** What the peer may make this side commit ahead of its bytes, and how fast its frames must arrive. */
    private final ReceiveBudget.Connection budget;
    private final StreamResponder responder;
    private final StreamRequests requests;
    private final FrameParser parser;
    private final FrameParser.Sink frames = new Frames();
    private final MemorySegment receive;
    /** Whether the channel can receive into payload buffers (see {@link #DIRECT_RECEIVE_MIN}). */
    private final boolean scatterReceives;
    /** The start of the receive buffer that a scatter receive fills after the payload's rest. */
    private final MemorySegment scatterTail;

    /** The connection's credit gate: a message gets a buffer only once the gate found a credit for it. */
    private CreditGate gate;
    /** Bytes of the last receive not yet fed to the parser (reading paused while the backlog is full). */
    private int unfedOffset;
    private int unfedLength;
    private boolean recvInFlight;
    /** Bytes of the receive in flight that go straight into the parser's current payload (scatter receive). */
    private int recvDirect;
    /** Bytes the receive in flight may take in all, and whether the last one took all it was given. */
    private long recvPosted;
    private boolean recvFilled;
    private boolean retry;
    private boolean eof;
    private boolean peerCloseSeen;
    /** Nothing more is received: the socket is stopped, or the wire released. */
    private boolean stopped;

    StreamReader(StreamChannel channel, WireState state, WireEventQueue events, MemoryDomain memory,
                 ReceiveBudget.Connection budget, StreamResponder responder, StreamRequests requests,
                 FrameParser parser) {
        this.channel = channel;
        this.state = state;
        this.events = events;
        this.memory = memory;
        this.budget = budget;
        this.responder = responder;
        this.requests = requests;
        this.parser = parser;
        this.receive = channel.receiveBuffer();
        this.scatterReceives = channel.scatterReceives();
        this.scatterTail = receive.asSlice(0, Math.min(receive.byteSize(), SCATTER_TAIL));
    }

    /** The connection's credit gate, which counts the credits the engine granted (see {@code Wire#attach}). */
    void attach(CreditGate gate) {
        this.gate = gate;
    }

    /** A receive completed with {@code res} (bytes, 0 at the end of stream, or a negated error number). */
    void completed(int res) {
        recvInFlight = false;
        recvFilled = res == recvPosted;
        if (res <= 0) {
            recvDirect = 0;
            eof = true;
        }
    }

    /**
     * Parses the {@code res} bytes that arrived. Throws on a frame that breaks the protocol (the connection ends).
     */
    void received(int res) {
        int direct = recvDirect;
        recvDirect = 0;
        int intoPayload = Math.min(res, direct);
        if (intoPayload > 0) {
            parser.filled(intoPayload, frames);
        }
        unfedOffset = 0;
        unfedLength = res - intoPayload;
        feed();
    }

    /**
     * Feeds the parser what the last receive left unfed, frame by frame, stopping between frames while the response
     * backlog is full: the receive buffer is then not reposted, and the peer's further requests wait in the socket.
     */
    void feed() {
        while (unfedLength > 0) {
            if (responder.backlogFull() && !state.isClosed()) {
                return;
            }
            int n = parser.feedFrame(receive, unfedOffset, unfedLength, frames);
            unfedOffset += n;
            unfedLength -= n;
        }
    }

    /** Whether bytes of the last receive wait for the backlog to drain (reading is paused by this side). */
    boolean paused() {
        return unfedLength > 0;
    }

    /** Whether reading paused for the backlog can go on now. */
    boolean mayResume() {
        return unfedLength > 0 && !responder.backlogFull() && !recvInFlight && !stopped;
    }

    /** Drops what waits unparsed (the connection failed). */
    void dropUnfed() {
        unfedLength = 0;
    }

    boolean endOfStream() {
        return eof;
    }

    boolean peerCloseSeen() {
        return peerCloseSeen;
    }

    boolean inFlight() {
        return recvInFlight;
    }

    /** The error that ends a connection whose current frame arrives slower than the budget's minimum rate. */
    ConnectionLostException trickled(long now, String remoteAddress) {
        if (budget.trickling(now, !parser.atFrameBoundary(), parser.framesCompleted(), parser.frameBytes())) {
            return new ConnectionLostException("a frame from " + remoteAddress + " arrived slower than "
                    + budget.minReceiveRate() + " bytes/s (security.minReceiveRate): " + parser.frameBytes()
                    + " bytes in");
        }
        return null;
    }

    /** This side stopped reading by choice: the peer's silence is its doing (see {@link StreamWire#poll}). */
    void pausedByUs(LivenessMonitor liveness) {
        liveness.heard();
        budget.pausedByUs();
    }

    /** Retries a receive the channel could not take at the last {@link #post}. */
    void retryIfRefused() {
        if (retry) {
            retry = false;
            post();
        }
    }

    /** Posts the next receive, unless one is in flight, the stream ended or unfed bytes wait. */
    void post() {
        if (recvInFlight || eof || stopped || unfedLength > 0) {
            return; // unfed bytes still sit in the receive buffer: reading resumes once they are parsed
        }
        // The rest of a large payload is received straight into its destination, one copy (the kernel's) instead
        // of two, and only a little into the receive buffer after it: enough for the next header and small frames,
        // little of the next large payload (which then goes the same way). Smaller remainders, and everything on
        // channels without scatter receives, go through the receive buffer.
        int direct = scatterReceives && parser.mayReceiveDirect(frames) ? parser.payloadRemaining() : 0;
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
            retry = true;
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

    /** Nothing more is received from now on. */
    void stop() {
        stopped = true;
    }

    /**
     * Stops receiving and releases the parser's buffers, the budget and a put's grant, unless a receive still in
     * the kernel may write into them ({@link #systemGone()} releases them then).
     */
    void release() {
        stopped = true;
        if (!(recvInFlight && recvDirect > 0)) {
            releaseTargets();
        }
    }

    /** The system layer is gone: no posted receive can write any more. */
    void systemGone() {
        recvInFlight = false;
        recvDirect = 0;
        releaseTargets();
    }

    private void releaseTargets() {
        parser.close();
        budget.close();
        responder.releasePut();
    }

    /** Where the parser's frames go: credits (through the gate), grants and awaited responses are checked here. */
    private final class Frames implements FrameParser.Sink {

        @Override
        public Buffer messageBuffer(long word, int length) {
            if (state.isClosed()) {
                return null; // still draining the socket after close: nobody will read it
            }
            if (ControlWord.type(word) == ControlWord.DATA) {
                gate.admit();
            } else {
                gate.requireCredit(); // a coalesced frame: its count is known once it is whole
            }
            long first = budget.firstPiece(length);
            Buffer b = memory.allocate((int) first);
            return first == length ? b.length(length) : b; // else its memory follows its bytes: growMessage
        }

        @Override
        public Buffer growMessage(int filled, int length) {
            return memory.allocate((int) ReceiveBudget.nextPiece(length, filled + 1L, filled));
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
            if (state.isClosed()) {
                if (payload != null) {
                    payload.release();
                }
                return;
            }
            if (type == ControlWord.CREDIT && events.mergeCredits(word)) {
                return; // consecutive grants become one arrival
            }
            if (type == ControlWord.BATCH) {
                try {
                    gate.admitBatch(payload.capacitySegment(), payload.length());
                } catch (CreditProtocolException e) {
                    payload.release();
                    throw e;
                }
            }
            events.received(word, payload);
        }

        @Override
        public MemorySegment putTarget(long id, MemorySegment request, long dataLength) {
            return state.isClosed() ? null : responder.putTarget(request, dataLength);
        }

        @Override
        public boolean putStillGranted() {
            return responder.putStillGranted();
        }

        @Override
        public void putDone(long id, boolean applied) {
            responder.putDone(id, applied, state.isClosed());
        }

        @Override
        public void request(int kind, long id, MemorySegment request) {
            if (!state.isClosed()) {
                responder.request(kind, id, request);
            }
        }

        @Override
        public MemorySegment getResponseTarget(long id, long length) {
            return state.isClosed() ? null : requests.getResponseTarget(id, length);
        }

        @Override
        public void frame(int kind, long tag, MemorySegment payload) {
            switch (kind) {
                case FrameKind.FLUSH -> respondUnlessClosed(FrameKind.FLUSH_ACK, tag);
                case FrameKind.HEARTBEAT -> respondUnlessClosed(FrameKind.HEARTBEAT_ACK, tag);
                case FrameKind.HEARTBEAT_ACK -> { } // being heard is all it is for
                default -> requests.onResponse(kind, tag, payload, state.isClosed());
            }
        }

        private void respondUnlessClosed(int kind, long tag) {
            if (!state.isClosed()) {
                responder.respond(kind, tag, 0, 0, 0, 0);
            }
        }
    }
}
