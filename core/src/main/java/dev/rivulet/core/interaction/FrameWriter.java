package dev.rivulet.core.interaction;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.engine.EndpointEngine;
import dev.rivulet.core.error.MessageTooLargeException;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.internal.MemoryAccess;
import dev.rivulet.core.interaction.frame.ErrorCode;
import dev.rivulet.core.interaction.frame.FrameType;
import dev.rivulet.core.interaction.frame.Frames;
import dev.rivulet.core.memory.Buffer;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.publisher.Mono;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Encodes frames into registered buffers of the endpoint's memory and hands them, from any thread, to one long-lived
 * {@code send(Publisher)} of the endpoint: the engine keeps the order in which they were written, and its credits
 * and send queue pace them. A frame the endpoint could never carry is refused here, before it is queued, so one
 * oversized payload fails its own stream and not the connection.
 */
final class FrameWriter {

    /** Largest frame written, so that fragments of a large payload stay in pooled buffers. */
    static final int MAX_FRAGMENT = 8 << 20;
    /**
     * Smallest payload sent behind its header without a copy ({@link MemoryAccess#attachBody}): below this the copy
     * costs less than what a frame in one piece saves (a small frame may share a coalesced send with others).
     */
    static final int GATHER_FROM = 1024;
    private static final MemoryAccess MEMORY = Internals.memory();

    private final Endpoint endpoint;
    /** Whether the endpoint is Rivulet's engine, which sends a header buffer's attached body with it. */
    private final boolean gathers;
    private final long maxFrame;
    private final int fragment;
    private volatile @Nullable FluxSink<Buffer> sink;

    FrameWriter(Endpoint endpoint) {
        this.endpoint = endpoint;
        this.gathers = endpoint instanceof EndpointEngine;
        this.maxFrame = Math.min(Integer.MAX_VALUE, endpoint.capabilities().maxMessageSize());
        this.fragment = (int) Math.min(maxFrame, MAX_FRAGMENT);
    }

    /** Starts the send; {@code onEnd} runs once when it ends (the endpoint closed or failed). */
    void start(Consumer<@Nullable Throwable> onEnd) {
        Flux<Buffer> frames = Flux.<Buffer>create(s -> sink = s, FluxSink.OverflowStrategy.BUFFER)
                .doOnDiscard(Buffer.class, FrameWriter::releaseQuietly);
        endpoint.send(frames).subscribe(null, onEnd::accept, () -> onEnd.accept(null));
    }

    /** Ends the send after the frames written so far. */
    void finish() {
        FluxSink<Buffer> s = sink;
        if (s != null) {
            s.complete();
        }
    }

    /** A frame without payload ({@code REQUEST_N}, {@code CANCEL}, a bare {@code COMPLETE}). */
    void control(int streamId, int type, int flags, int n) {
        Buffer b = endpoint.memory().allocate(Frames.HEADER);
        Frames.writeHeader(b.capacitySegment(), streamId, type, flags, n, 0);
        emit(b.length(Frames.HEADER));
    }

    /** A {@code LEASE} frame on stream 0. */
    void lease(Lease lease) {
        Buffer b = endpoint.memory().allocate(Frames.HEADER + 4);
        MemorySegment s = b.capacitySegment();
        Frames.writeHeader(s, 0, FrameType.LEASE, 0, lease.requests(), 0);
        Frames.putInt(s, Frames.HEADER, (int) lease.ttl().toMillis());
        emit(b.length(Frames.HEADER + 4));
    }

    /** An {@code ERROR} frame with {@code code} and {@code message}. */
    void error(int streamId, int code, @Nullable String message) {
        byte[] text = (message == null ? "" : message).getBytes(StandardCharsets.UTF_8);
        int n = (int) Math.min(text.length, Math.min(maxFrame - Frames.HEADER, 4096));
        Buffer b = endpoint.memory().allocate(Frames.HEADER + n);
        MemorySegment s = b.capacitySegment();
        Frames.writeHeader(s, streamId, FrameType.ERROR, 0, code, 0);
        MemorySegment.copy(text, 0, s, ValueLayout.JAVA_BYTE, Frames.HEADER, n);
        emit(b.length(Frames.HEADER + n));
    }

    /** The error frame a local failure {@code t} of a stream becomes. */
    void error(int streamId, Throwable t) {
        error(streamId, ErrorCode.of(t), String.valueOf(t.getMessage()));
    }

    /**
     * A frame carrying {@code payload}, in fragments ({@link Frames#FOLLOWS}) when it is larger than one frame; its
     * buffer, if it was built from one, goes with the frame as its second part or is released once copied. Throws {@link MessageTooLargeException} (and releases
     * that buffer) when its metadata alone does not fit the first fragment.
     */
    void payload(int streamId, int type, int flags, int n, Payload payload) {
        Buffer own = payload.ownBuffer();
        try {
            byte[] m = payload.metadata().encoded();
            int metaLength = m.length;
            long size = (long) Frames.HEADER + metaLength + payload.dataLength();
            if (size <= fragment && canGather(own, payload)) {
                Buffer head = endpoint.memory().allocate(Frames.HEADER + metaLength);
                MemorySegment s = head.capacitySegment();
                Frames.writeHeader(s, streamId, type, flags, n, metaLength);
                MemorySegment.copy(m, 0, s, ValueLayout.JAVA_BYTE, Frames.HEADER, metaLength);
                MEMORY.attachBody(head.length(Frames.HEADER + metaLength), own);
                own = null; // the head holds its reference now
                emit(head);
                return;
            }
            if (size <= fragment) {
                Buffer b = endpoint.memory().allocate((int) size);
                MemorySegment s = b.capacitySegment();
                Frames.writeHeader(s, streamId, type, flags, n, metaLength);
                MemorySegment.copy(m, 0, s, ValueLayout.JAVA_BYTE, Frames.HEADER, metaLength);
                payload.copyData(s, Frames.HEADER + metaLength);
                emit(b.length((int) size));
                return;
            }
            if (Frames.HEADER + (long) metaLength >= fragment) {
                throw new MessageTooLargeException(metaLength + " bytes of metadata do not fit a frame of at most "
                        + fragment + " bytes");
            }
            fragments(streamId, type, flags, n, m, metaLength, payload.data());
        } finally {
            if (own != null) {
                own.release();
            }
        }
    }

    /**
     * Whether {@code payload}'s data can follow its frame header as a buffer of its own: it is all of a registered
     * buffer of this endpoint's memory, and large enough for that to beat a copy.
     */
    private boolean canGather(@Nullable Buffer own, Payload payload) {
        return gathers && own != null && payload.dataLength() >= GATHER_FROM && own.length() == payload.dataLength()
                && own.region().domain() == endpoint.memory();
    }

    /** A payload larger than a frame: the first fragment with the metadata, then PAYLOAD fragments. */
    private void fragments(int streamId, int type, int flags, int n, byte[] m, int metaLength, MemorySegment data) {
        long total = data.byteSize();
        int first = fragment - Frames.HEADER - metaLength;
        Buffer b = endpoint.memory().allocate(fragment);
        MemorySegment s = b.capacitySegment();
        Frames.writeHeader(s, streamId, type, (flags & ~Frames.COMPLETE) | Frames.FOLLOWS, n, metaLength);
        MemorySegment.copy(m, 0, s, ValueLayout.JAVA_BYTE, Frames.HEADER, metaLength);
        MemorySegment.copy(data, 0, s, Frames.HEADER + metaLength, first);
        emit(b.length(fragment));
        for (long done = first; done < total; ) {
            int piece = (int) Math.min(fragment - Frames.HEADER, total - done);
            boolean last = done + piece == total;
            Buffer f = endpoint.memory().allocate(Frames.HEADER + piece);
            MemorySegment fs = f.capacitySegment();
            Frames.writeHeader(fs, streamId, FrameType.PAYLOAD, last ? flags & Frames.COMPLETE : Frames.FOLLOWS, 0, 0);
            MemorySegment.copy(data, done, fs, Frames.HEADER, piece);
            emit(f.length(Frames.HEADER + piece));
            done += piece;
        }
    }

    private void emit(Buffer frame) {
        FluxSink<Buffer> s = sink;
        if (s == null || s.isCancelled()) {
            frame.release();
            return;
        }
        s.next(frame);
    }

    private static void releaseQuietly(Buffer b) {
        if (b.refCnt() > 0) {
            b.release();
        }
    }

    /** The endpoint this writer sends on. */
    Endpoint endpoint() {
        return endpoint;
    }

    /** Completes when the endpoint closes. */
    Mono<Void> onClose() {
        return endpoint.onClose();
    }
}
