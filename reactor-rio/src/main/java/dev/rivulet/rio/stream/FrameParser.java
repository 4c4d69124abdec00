package dev.rivulet.rio.stream;

import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.memory.Buffer;

import java.lang.foreign.MemorySegment;
import java.util.function.IntFunction;

/**
 * Cuts a byte stream into frames. A stream socket hands over arbitrary chunks, so a header or a payload may be
 * split anywhere; the parser keeps a partial header in a 16-byte scratch segment and copies a payload straight into
 * a pooled {@link Buffer} of the frame's size as its bytes arrive, so each chunk is consumed completely and the
 * receive buffer can be reposted at once. The rest of a large payload may instead be received straight into it
 * ({@link #payloadRemainder()}, {@link #filled}). Not thread-safe: one parser per connection, fed by its progress
 * thread.
 */
public final class FrameParser {

    /** Receives complete frames in stream order; {@code payload} is null for an empty frame, else owned by it. */
    @FunctionalInterface
    public interface Sink {
        void frame(int kind, long tag, Buffer payload);
    }

    private final IntFunction<Buffer> allocator;
    private final long maxPayload;
    private final MemorySegment header = MemorySegment.ofArray(new byte[FrameHeader.BYTES]);
    private int headerFill;
    private int kind;
    private long tag;
    private Buffer payload;
    private int payloadLength;
    private int payloadFill;

    /**
     * @param allocator  gives a buffer of at least the asked size for each payload
     * @param maxPayload longest payload accepted; a longer one is a protocol violation (a corrupt or hostile peer
     *                   must not make us allocate gigabytes)
     */
    public FrameParser(IntFunction<Buffer> allocator, long maxPayload) {
        this.allocator = allocator;
        this.maxPayload = maxPayload;
    }

    /**
     * Consumes {@code length} bytes of {@code chunk} from {@code offset}, handing every frame completed by them to
     * {@code sink}.
     *
     * @throws CreditProtocolException on a malformed header (unknown kind, reserved bits, oversized payload)
     */
    public void feed(MemorySegment chunk, long offset, long length, Sink sink) {
        long pos = offset;
        long end = offset + length;
        while (pos < end) {
            if (payload == null) {
                int n = (int) Math.min(FrameHeader.BYTES - headerFill, end - pos);
                MemorySegment.copy(chunk, pos, header, headerFill, n);
                headerFill += n;
                pos += n;
                if (headerFill == FrameHeader.BYTES) {
                    headerFill = 0;
                    startFrame(sink);
                }
            } else {
                int n = (int) Math.min(payloadLength - payloadFill, end - pos);
                MemorySegment.copy(chunk, pos, payload.capacitySegment(), payloadFill, n);
                payloadFill += n;
                pos += n;
                if (payloadFill == payloadLength) {
                    Buffer done = payload;
                    payload = null;
                    sink.frame(kind, tag, done);
                }
            }
        }
    }

    private void startFrame(Sink sink) {
        int k = FrameHeader.kind(header, 0);
        long len = FrameHeader.length(header, 0);
        if (k < FrameKind.MESSAGE || k > FrameKind.MAX || !FrameHeader.reservedClear(header, 0)) {
            throw new CreditProtocolException("malformed frame header (" + FrameKind.name(k) + ")");
        }
        if (len > maxPayload) {
            throw new CreditProtocolException(FrameKind.name(k) + " frame of " + len + " bytes exceeds the limit of "
                    + maxPayload);
        }
        kind = k;
        tag = FrameHeader.tag(header, 0);
        if (len == 0) {
            sink.frame(kind, tag, null);
            return;
        }
        payloadLength = (int) len;
        payloadFill = 0;
        payload = allocator.apply(payloadLength);
        payload.length(payloadLength);
    }

    /** Bytes still missing from the payload being filled; 0 between payloads (also while inside a header). */
    public int payloadRemaining() {
        return payload == null ? 0 : payloadLength - payloadFill;
    }

    /**
     * Where the rest of the current payload goes, for a receive straight into it (no pass through the receive
     * buffer); only while {@link #payloadRemaining()} {@code > 0}. Exactly the missing bytes, nothing beyond.
     */
    public MemorySegment payloadRemainder() {
        return payload.capacitySegment().asSlice(payloadFill, payloadLength - payloadFill);
    }

    /** Accounts {@code n} bytes received into {@link #payloadRemainder()}; hands the frame over once complete. */
    public void filled(int n, Sink sink) {
        if (payload == null || n < 0 || n > payloadLength - payloadFill) {
            throw new IllegalStateException("filled(" + n + ") with " + payloadRemaining() + " bytes missing");
        }
        payloadFill += n;
        if (payloadFill == payloadLength) {
            Buffer done = payload;
            payload = null;
            sink.frame(kind, tag, done);
        }
    }

    /** Whether the parser is between frames (nothing partial held). */
    public boolean atFrameBoundary() {
        return payload == null && headerFill == 0;
    }

    /** Releases a partially received payload. */
    public void close() {
        if (payload != null) {
            Buffer b = payload;
            payload = null;
            b.release();
        }
        headerFill = 0;
    }
}
