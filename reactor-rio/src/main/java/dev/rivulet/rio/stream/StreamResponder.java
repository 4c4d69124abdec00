package dev.rivulet.rio.stream;

import dev.rivulet.core.engine.AtomicOp;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.remote.SoftwareTarget;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;

/**
 * The target side of a {@link StreamWire}'s one-sided operations: the peer's puts, gets and atomics, checked and
 * carried out by the connection's {@link SoftwareTarget}, and the responses written in request order.
 *
 * <p>A put's data goes straight into the granted window once its request passed the target's check, and is
 * discarded otherwise. A get's bytes are checked and copied out of the granted window when its response is written
 * (never read from user memory after the fact: an owner may free it once the region is closed), into staging, or
 * into a pooled buffer of the transport's own for a large one. Responses waiting for staging space are bounded: past
 * {@link #MAX_BACKLOG} of them (or {@link #MAX_RESPONSE_BYTES} of copied get answers) the wire stops reading the
 * socket, so a peer that floods requests without reading the answers is slowed by TCP, not buffered without limit.
 */
final class StreamResponder {

    /** Responses waiting for staging space beyond which the wire stops reading requests (backpressure). */
    static final int MAX_BACKLOG = 64;
    /** Bytes of large get answers copied out and not yet written, beyond which answering waits. */
    static final long MAX_RESPONSE_BYTES = 4 << 20;
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** What a refused RMA request is answered with, whatever the reason. */
    private static final byte[] REFUSED = MemoryDomain.REFUSED.getBytes(StandardCharsets.UTF_8);

    private final SoftwareTarget target;
    private final StreamWriter writer;
    private final MemoryDomain memory;
    private final long maxRmaSize;
    private final int copyLimit;
    /** Responses that found the staging buffer full; sent before anything new. */
    private final ArrayDeque<Response> backlog = new ArrayDeque<>();
    private final ArrayDeque<Response> freeResponses = new ArrayDeque<>();
    /** The grant a put's data is being written into (pinned until the put ends). */
    private Grant currentPut;

    StreamResponder(SoftwareTarget target, StreamWriter writer, MemoryDomain memory, long maxRmaSize,
                    int copyLimit) {
        this.target = target;
        this.writer = writer;
        this.memory = memory;
        this.maxRmaSize = maxRmaSize;
        this.copyLimit = copyLimit;
    }

    /** Where a put's {@code dataLength} bytes go: the granted window, pinned until {@link #putDone}; null: refused. */
    MemorySegment putTarget(MemorySegment request, long dataLength) {
        long address = RmaRequest.address(request);
        Grant g = target.tryResolve(RmaRequest.key(request), address, dataLength, Access.REMOTE_WRITE);
        if (g == null) {
            return null;
        }
        currentPut = g;
        return g.window().asSlice(g.offsetOf(address), dataLength);
    }

    /** Whether the window a put is writing into is still granted (a revocation ends it). */
    boolean putStillGranted() {
        return currentPut != null && currentPut.isOpen();
    }

    /** A put's data is complete or discarded: its grant goes, and the answer follows unless the wire closed. */
    void putDone(long id, boolean applied, boolean closed) {
        releasePut();
        if (!closed) {
            respond(applied ? FrameKind.RMA_ACK : FrameKind.RMA_ERR, id, 0, 0, 0, 0);
        }
    }

    /** Lets go of the grant a put was writing into (its data is complete, discarded, or the wire is gone). */
    void releasePut() {
        Grant g = currentPut;
        if (g != null) {
            currentPut = null;
            target.release(g);
        }
    }

    /** A get or atomic request (its 40 bytes in {@code request}). */
    void request(int kind, long id, MemorySegment request) {
        long address = RmaRequest.address(request);
        long key = RmaRequest.key(request);
        if (kind == FrameKind.GET) {
            long len = RmaRequest.length(request);
            if (len > maxRmaSize) {
                respond(FrameKind.RMA_ERR, id, 0, 0, 0, 0);
            } else {
                // Checked and copied when the response is written (tryRespond), in order behind earlier ones.
                respond(FrameKind.GET_RESP, id, 0, key, address, len);
            }
            return;
        }
        AtomicOp op = SoftwareTarget.atomicOp(RmaRequest.atomic(request));
        long previous;
        try {
            if (op == null) {
                throw SoftwareTarget.refused();
            }
            previous = target.atomic(op, RmaRequest.width(request), key, address, RmaRequest.operand(request),
                    RmaRequest.compare(request));
        } catch (RemoteAccessException refused) {
            respond(FrameKind.RMA_ERR, id, 0, 0, 0, 0);
            return;
        }
        respond(FrameKind.ATOMIC_RESP, id, previous, 0, 0, 0);
    }

    /**
     * Sends a response in order behind earlier ones: a bare frame, an atomic's previous {@code value}, or a get's
     * bytes ({@code length} of them at {@code address} under {@code key}), checked against the grants and copied
     * when the response is written.
     */
    void respond(int kind, long id, long value, long key, long address, long length) {
        if (backlog.isEmpty() && tryRespond(kind, id, value, key, address, length)) {
            writer.pump();
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
     * granted window while the grant is pinned for the copy only: what goes out never depends on the owner keeping
     * memory alive after it closed the region, and the copies waiting to be written are bounded.
     */
    private boolean tryRespond(int kind, long id, long value, long key, long address, long length) {
        if (kind == FrameKind.GET_RESP) {
            return tryRespondGet(id, key, address, (int) length);
        }
        int len = kind == FrameKind.ATOMIC_RESP ? 8 : kind == FrameKind.RMA_ERR ? REFUSED.length : 0;
        long at = writer.beginFrame(kind, id, len, len);
        if (at < 0) {
            return false;
        }
        if (kind == FrameKind.ATOMIC_RESP) {
            writer.staging().set(U64, at, value);
        } else if (kind == FrameKind.RMA_ERR) {
            MemorySegment.copy(REFUSED, 0, writer.staging(), ValueLayout.JAVA_BYTE, at, REFUSED.length);
        }
        return true;
    }

    private boolean tryRespondGet(long id, long key, long address, int len) {
        boolean copy = len <= copyLimit;
        long waiting = writer.responseBytes();
        if (!copy && waiting > 0 && waiting + len > MAX_RESPONSE_BYTES) {
            return false; // earlier answers are still being written: wait, reading requests stays paused behind
        }
        if (!writer.hasRoom(FrameHeader.BYTES + (long) (copy ? len : 0))) {
            return false;
        }
        Grant g = target.tryResolve(key, address, len, Access.REMOTE_READ);
        if (g == null) {
            return tryRespond(FrameKind.RMA_ERR, id, 0, 0, 0, 0);
        }
        try {
            long at = writer.beginFrame(FrameKind.GET_RESP, id, len, copy ? len : 0);
            if (copy) {
                copyOut(g, address, writer.staging(), at, len);
            } else {
                Buffer b = memory.allocate(len);
                copyOut(g, address, b.capacitySegment(), 0, len);
                writer.appendResponse(b, len);
            }
        } finally {
            target.release(g);
        }
        return true;
    }

    /** The response's header is written already: memory gone under the grant ends the connection, typed. */
    private void copyOut(Grant g, long address, MemorySegment destination, long offset, int len) {
        if (!target.copyOut(g, address, destination, offset, len)) {
            throw new IllegalStateException("granted memory was freed under a get being answered");
        }
    }

    /** Sends waiting responses while there is room; true when at least one went. */
    boolean drain(boolean closed) {
        Response r;
        boolean any = false;
        while ((r = backlog.peekFirst()) != null && !closed
                && tryRespond(r.kind, r.id, r.value, r.key, r.address, r.length)) {
            backlog.pollFirst();
            freeResponses.addLast(r);
            any = true;
        }
        return any;
    }

    /** Whether responses wait for staging space. */
    boolean backlogged() {
        return !backlog.isEmpty();
    }

    /** Whether so many responses wait that reading further requests must pause. */
    boolean backlogFull() {
        return backlog.size() >= MAX_BACKLOG;
    }

    /** The wire closed: waiting responses are dropped (the peer will not read them). */
    void clear() {
        Response r;
        while ((r = backlog.pollFirst()) != null) {
            freeResponses.addLast(r);
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
