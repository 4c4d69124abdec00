package dev.rivulet.rio.stream;

import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.memory.Buffer;

import java.lang.foreign.MemorySegment;

/**
 * Cuts a byte stream into frames and decides, from each 16-byte header alone, where the payload may go before a
 * single payload byte is taken: a peer controls every header, so nothing is allocated or written on its word.
 *
 * <ul>
 *   <li>Every kind has its own payload limit ({@link #limitOf}); a header over it is a protocol violation.</li>
 *   <li>A message (DATA, BATCH) gets a pooled buffer only after the {@link Sink} found a credit for it, and only as
 *       much of one as the sink lets the peer commit ahead of its bytes: a smaller buffer is grown (doubling,
 *       through {@link Sink#growMessage}) as the bytes arrive, so a peer cannot make this side hold far more than it
 *       sent.</li>
 *   <li>A put's 40-byte request is read first; the sink checks the grant, and the data then goes into the granted
 *       window as it arrives, or is discarded when refused, or when the grant is revoked in the middle: the grant is
 *       checked before each piece is copied or a receive straight into the window is posted, and a put whose
 *       grant ended while such a receive was in the kernel is answered as not applied.</li>
 *   <li>A get's response goes straight into the waiting operation's local memory.</li>
 *   <li>Everything else is small and lands in a scratch segment owned by the parser.</li>
 * </ul>
 * A stream socket hands over arbitrary chunks, so a header or payload may be split anywhere; each chunk is consumed
 * completely and the receive buffer can be reposted at once. The rest of a large payload may instead be received
 * straight into its destination (the rest of {@link #payloadTarget()}, {@link #filled}). Not thread-safe: one parser per
 * connection, fed by its progress thread.
 */
public final class FrameParser {

    /** Longest error text a target sends with {@link FrameKind#RMA_ERR}. */
    public static final int MAX_ERROR_TEXT = 1024;

    /** Receives frames in stream order and places their payloads. */
    public interface Sink {

        /**
         * A DATA or BATCH frame of {@code length} bytes: checks the credit for it and returns a pooled buffer for its
         * payload (owned by the parser until {@link #message}) of {@code length} bytes, or of fewer when the payload's
         * memory must follow its bytes (the parser then asks {@link #growMessage} whenever the buffer is full);
         * throws {@link CreditProtocolException} when the peer has no credit.
         */
        Buffer messageBuffer(long word, int length);

        /**
         * A buffer larger than {@code filled} bytes (and at most {@code length}) for a message whose first
         * {@code filled} bytes have arrived into a smaller one; the parser copies them over and releases the smaller.
         */
        Buffer growMessage(int filled, int length);

        /** A complete message: DATA or BATCH with its buffer, CREDIT or CLOSE with {@code null}. */
        void message(long word, Buffer payload);

        /**
         * A put's request ({@link RmaRequest}, valid during the call) announcing {@code dataLength} bytes: the
         * segment of exactly that size the data goes to, or null to discard it.
         */
        MemorySegment putTarget(long id, MemorySegment request, long dataLength);

        /** Whether the put being received may still write its target (its grant is not revoked). */
        boolean putStillGranted();

        /** A put's data has all arrived: written to its target ({@code applied}) or discarded. */
        void putDone(long id, boolean applied);

        /** A GET or ATOMIC request ({@link RmaRequest}, valid during the call). */
        void request(int kind, long id, MemorySegment request);

        /**
         * A GET_RESP of {@code length} bytes: the local segment it lands in; throws {@link CreditProtocolException}
         * when no get of that length awaits it.
         */
        MemorySegment getResponseTarget(long id, long length);

        /**
         * Any other complete frame: RMA_ACK, ATOMIC_RESP, RMA_ERR, FLUSH, FLUSH_ACK, HEARTBEAT, HEARTBEAT_ACK, and a
         * GET_RESP once its bytes are in place. {@code payload} is valid during the call only.
         */
        void frame(int kind, long tag, MemorySegment payload);
    }

    private static final int HEADER = 0;
    private static final int SCRATCH = 1;
    private static final int BODY = 2;
    private static final int SKIP = 3;

    private final MemorySegment header = MemorySegment.ofArray(new byte[FrameHeader.BYTES]);
    private final MemorySegment scratch = MemorySegment.ofArray(new byte[Math.max(MAX_ERROR_TEXT, RmaRequest.BYTES)]);
    /** Views of the scratch made once, so parsing a small frame allocates nothing. */
    private final MemorySegment request = scratch.asSlice(0, RmaRequest.BYTES);
    private final MemorySegment word = scratch.asSlice(0, 8);
    private static final MemorySegment EMPTY = MemorySegment.ofArray(new byte[0]);
    private final long maxMessage;
    private final long maxBatch;
    private final long maxRma;

    private int state = HEADER;
    private int headerFill;
    private int kind;
    private long tag;
    private long length;
    private int scratchNeed;
    private int scratchFill;
    /** BODY: where the payload goes, how much of it that memory takes now, how much is in. */
    private MemorySegment target;
    private long bodyLimit;
    private long fill;
    private Buffer buffer;
    /** SKIP: bytes still to discard. */
    private long skip;
    /** Whether the PUT in SKIP or BODY is being applied (false: discarded). */
    private boolean putApplied;
    /** Frames completed so far (lets {@link #feedFrame} stop after one). */
    private long completed;
    /** Bytes of the current frame consumed so far, header included (0 between frames). */
    private long frameBytes;

    /**
     * @param maxMessage longest DATA payload (the transport's maximum message size)
     * @param maxBatch   longest BATCH payload (the coalesced-frame limit)
     * @param maxRma     longest put or get
     */
    public FrameParser(long maxMessage, long maxBatch, long maxRma) {
        this.maxMessage = maxMessage;
        this.maxBatch = maxBatch;
        this.maxRma = maxRma;
    }

    /** The longest payload a frame of {@code kind} may carry, given the word its tag holds for messages. */
    long limitOf(int kind, long tag) {
        return switch (kind) {
            case FrameKind.MESSAGE -> switch (ControlWord.type(tag)) {
                case ControlWord.DATA -> maxMessage;
                case ControlWord.BATCH -> maxBatch;
                default -> 0;
            };
            case FrameKind.PUT -> RmaRequest.BYTES + maxRma;
            case FrameKind.GET, FrameKind.ATOMIC -> RmaRequest.BYTES;
            case FrameKind.GET_RESP -> maxRma;
            case FrameKind.ATOMIC_RESP -> 8;
            case FrameKind.RMA_ERR -> MAX_ERROR_TEXT;
            default -> 0;
        };
    }

    /**
     * Consumes {@code length} bytes of {@code chunk} from {@code offset}, handing every frame completed by them to
     * {@code sink}.
     *
     * @throws CreditProtocolException on a malformed header, a payload over its kind's limit, or what the sink
     *                                 refuses; the parser is then unusable (the connection is broken)
     */
    public void feed(MemorySegment chunk, long offset, long length, Sink sink) {
        consume(chunk, offset, offset + length, sink, false);
    }

    /**
     * As {@link #feed} but stops right after the first frame completed by these bytes; returns how many bytes it
     * consumed. Lets the caller pause between frames (backpressure) without losing the rest of a chunk.
     */
    public int feedFrame(MemorySegment chunk, long offset, long length, Sink sink) {
        return (int) (consume(chunk, offset, offset + length, sink, true) - offset);
    }

    private long consume(MemorySegment chunk, long pos, long end, Sink sink, boolean oneFrame) {
        long completedBefore = completed;
        while (pos < end && !(oneFrame && completed != completedBefore)) {
            switch (state) {
                case HEADER -> {
                    int n = (int) Math.min(FrameHeader.BYTES - headerFill, end - pos);
                    MemorySegment.copy(chunk, pos, header, headerFill, n);
                    headerFill += n;
                    frameBytes += n;
                    pos += n;
                    if (headerFill == FrameHeader.BYTES) {
                        headerFill = 0;
                        startFrame(sink);
                    }
                }
                case SCRATCH -> {
                    int n = (int) Math.min(scratchNeed - scratchFill, end - pos);
                    MemorySegment.copy(chunk, pos, scratch, scratchFill, n);
                    scratchFill += n;
                    frameBytes += n;
                    pos += n;
                    if (scratchFill == scratchNeed) {
                        scratchDone(sink);
                    }
                }
                case BODY -> {
                    if (kind == FrameKind.PUT && !sink.putStillGranted()) {
                        revokedMidPut(sink);
                        continue;
                    }
                    int n = (int) Math.min(bodyLimit - fill, end - pos);
                    MemorySegment.copy(chunk, pos, target, fill, n);
                    fill += n;
                    frameBytes += n;
                    pos += n;
                    bodyProgressed(sink);
                }
                default -> { // SKIP
                    long n = Math.min(skip, end - pos);
                    skip -= n;
                    frameBytes += n;
                    pos += n;
                    if (skip == 0) {
                        skipDone(sink);
                    }
                }
            }
        }
        return pos;
    }

    private void startFrame(Sink sink) {
        int k = FrameHeader.kind(header, 0);
        long len = FrameHeader.length(header, 0);
        long t = FrameHeader.tag(header, 0);
        if (k < FrameKind.MESSAGE || k > FrameKind.MAX || !FrameHeader.reservedClear(header, 0)) {
            throw new CreditProtocolException("malformed frame header (" + FrameKind.name(k) + ")");
        }
        if (k == FrameKind.MESSAGE && !ControlWord.isValid(t)) {
            throw new CreditProtocolException("malformed control word 0x" + Long.toHexString(t));
        }
        long limit = limitOf(k, t);
        if (len > limit) {
            throw new CreditProtocolException(FrameKind.name(k) + " frame of " + len + " bytes exceeds its limit of "
                    + limit);
        }
        kind = k;
        tag = t;
        length = len;
        switch (k) {
            case FrameKind.MESSAGE -> {
                int type = ControlWord.type(t);
                if (type == ControlWord.DATA || type == ControlWord.BATCH) {
                    if (type == ControlWord.BATCH && len == 0) {
                        throw new CreditProtocolException("empty coalesced frame");
                    }
                    Buffer b = sink.messageBuffer(t, (int) len);
                    if (b == null) {
                        skip(len);
                    } else if (len == 0) {
                        done();
                        sink.message(t, b);
                    } else {
                        buffer = b;
                        body(b.capacitySegment());
                        bodyLimit = Math.min(len, b.capacity());
                    }
                } else {
                    done();
                    sink.message(t, null);
                }
            }
            case FrameKind.PUT -> {
                if (len < RmaRequest.BYTES) {
                    throw new CreditProtocolException("PUT frame of " + len + " bytes has no room for its request");
                }
                scratch(RmaRequest.BYTES);
            }
            case FrameKind.GET, FrameKind.ATOMIC -> {
                if (len != RmaRequest.BYTES) {
                    throw new CreditProtocolException(FrameKind.name(k) + " frame of " + len + " bytes, expected "
                            + RmaRequest.BYTES);
                }
                scratch(RmaRequest.BYTES);
            }
            case FrameKind.ATOMIC_RESP -> {
                if (len != 8) {
                    throw new CreditProtocolException("ATOMIC_RESP frame of " + len + " bytes, expected 8");
                }
                scratch(8);
            }
            case FrameKind.GET_RESP -> {
                MemorySegment into = sink.getResponseTarget(t, len);
                if (into == null) {
                    skip(len);
                } else if (len == 0) {
                    done();
                    sink.frame(k, t, EMPTY);
                } else {
                    body(into);
                }
            }
            case FrameKind.RMA_ERR -> {
                if (len == 0) {
                    done();
                    sink.frame(k, t, EMPTY);
                } else {
                    scratch((int) len);
                }
            }
            default -> { // limit 0: no payload
                done();
                sink.frame(k, t, EMPTY);
            }
        }
    }

    private void done() {
        state = HEADER;
        completed++;
        frameBytes = 0;
    }

    private void scratch(int need) {
        state = SCRATCH;
        scratchNeed = need;
        scratchFill = 0;
    }

    private void body(MemorySegment into) {
        state = BODY;
        target = into;
        bodyLimit = length;
        fill = 0;
    }

    /** After bytes went into the body: the frame is complete, or its buffer full and grown, or neither yet. */
    private void bodyProgressed(Sink sink) {
        if (fill == length) {
            bodyDone(sink);
        } else if (fill == bodyLimit) {
            growBody(sink);
        }
    }

    /** A message whose memory follows its bytes filled its buffer: the next, larger one takes over. */
    private void growBody(Sink sink) {
        Buffer bigger = sink.growMessage((int) fill, (int) length);
        if (bigger.capacity() <= fill) {
            bigger.release();
            throw new IllegalStateException("grown message buffer of " + bigger.capacity() + " bytes holds no more "
                    + "than the " + fill + " already in");
        }
        MemorySegment.copy(buffer.capacitySegment(), 0, bigger.capacitySegment(), 0, fill);
        buffer.release();
        buffer = bigger;
        target = bigger.capacitySegment();
        bodyLimit = Math.min(length, bigger.capacity());
    }

    private void skip(long n) {
        if (n == 0) {
            skipDone(null);
            return;
        }
        state = SKIP;
        skip = n;
    }

    private void scratchDone(Sink sink) {
        MemorySegment got = scratchNeed == RmaRequest.BYTES ? request
                : scratchNeed == 8 ? word : scratch.asSlice(0, scratchNeed);
        switch (kind) {
            case FrameKind.PUT -> {
                long data = length - RmaRequest.BYTES;
                MemorySegment into = sink.putTarget(tag, got, data);
                length = data;
                putApplied = into != null;
                if (data == 0) {
                    done();
                    sink.putDone(tag, putApplied);
                } else if (into != null) {
                    body(into);
                } else {
                    state = SKIP;
                    skip = data;
                }
            }
            case FrameKind.GET, FrameKind.ATOMIC -> {
                done();
                sink.request(kind, tag, got);
            }
            default -> {
                done();
                sink.frame(kind, tag, got);
            }
        }
    }

    private void bodyDone(Sink sink) {
        done();
        target = null;
        switch (kind) {
            case FrameKind.MESSAGE -> {
                Buffer b = buffer;
                buffer = null;
                sink.message(tag, b.length((int) length)); // a grown buffer may be larger than the message
            }
            case FrameKind.PUT -> sink.putDone(tag, true);
            default -> sink.frame(kind, tag, EMPTY); // GET_RESP: its bytes are in place
        }
    }

    /** The grant of the put being received was revoked: the rest of its data is discarded. */
    private void revokedMidPut(Sink sink) {
        putApplied = false;
        target = null;
        skip = length - fill;
        state = SKIP;
        if (skip == 0) {
            skipDone(sink);
        }
    }

    /** A skipped payload is over: a refused or revoked put is answered; skipped messages and responses vanish. */
    private void skipDone(Sink sink) {
        done();
        if (kind == FrameKind.PUT && sink != null) {
            sink.putDone(tag, putApplied);
        }
    }

    /**
     * Bytes the memory of the current payload takes next (a message buffer, a granted window, a get's
     * destination): the rest of the payload, or of its buffer when the buffer grows as the bytes arrive; 0 otherwise,
     * also while inside a header or a small payload.
     */
    public int payloadRemaining() {
        return state == BODY ? (int) Math.min(Integer.MAX_VALUE, bodyLimit - fill) : 0;
    }

    /**
     * Where the current payload goes, for a receive straight into the rest of it (no pass through the receive
     * buffer): the bytes from {@link #payloadFilled()} on, {@link #payloadRemaining()} of them and nothing beyond;
     * only while that is {@code > 0} and {@link #mayReceiveDirect} said yes.
     */
    public MemorySegment payloadTarget() {
        return target;
    }

    /** How much of the current payload has arrived: where a receive straight into it starts. */
    public long payloadFilled() {
        return fill;
    }

    /**
     * Whether a receive straight into the rest of {@link #payloadTarget()} may be posted now: false for a put whose
     * grant was revoked (its rest then goes through the receive buffer and is discarded).
     */
    public boolean mayReceiveDirect(Sink sink) {
        if (state != BODY || kind == FrameKind.GET_RESP) {
            // A get's destination belongs to its operation, which a close may fail (and so release) while a
            // receive is still posted: it is only ever copied into from the receive buffer.
            return false;
        }
        if (kind == FrameKind.PUT && !sink.putStillGranted()) {
            revokedMidPut(sink);
            return false;
        }
        return true;
    }

    /**
     * Accounts {@code n} bytes received into the rest of {@link #payloadTarget()}; hands the frame over once
     * complete. A put whose grant was revoked while the receive was in the kernel is not applied: the rest of its data is
     * discarded, and it is answered as refused even when these were its last bytes.
     */
    public void filled(int n, Sink sink) {
        if (state != BODY || n < 0 || n > bodyLimit - fill) {
            throw new IllegalStateException("filled(" + n + ") with " + payloadRemaining() + " bytes missing");
        }
        fill += n;
        frameBytes += n;
        if (kind == FrameKind.PUT && !sink.putStillGranted()) {
            revokedMidPut(sink);
        } else {
            bodyProgressed(sink);
        }
    }

    /** Whether the parser is between frames (nothing partial held). */
    public boolean atFrameBoundary() {
        return state == HEADER && headerFill == 0;
    }

    /** Frames completed so far: a frame in progress is the same one while this stays the same. */
    public long framesCompleted() {
        return completed;
    }

    /** Bytes of the frame in progress that have arrived, header included; 0 between frames. */
    public long frameBytes() {
        return frameBytes;
    }

    /** Whether a put's data is being written into a granted window right now (its grant is pinned). */
    public boolean inPutBody() {
        return state == BODY && kind == FrameKind.PUT;
    }

    /** Releases a partially received message buffer. */
    public void close() {
        if (buffer != null) {
            Buffer b = buffer;
            buffer = null;
            b.release();
        }
        target = null;
        state = HEADER;
        headerFill = 0;
        frameBytes = 0;
    }
}
