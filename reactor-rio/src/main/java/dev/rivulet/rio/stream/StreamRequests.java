package dev.rivulet.rio.stream;

import dev.rivulet.core.engine.Op;
import dev.rivulet.core.engine.OpKind;
import dev.rivulet.core.engine.Wire;
import dev.rivulet.core.engine.WireEventQueue;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.error.InvalidMemoryException;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.internal.MemoryAccess;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.memory.RegisteredSlice;
import dev.rivulet.core.memory.RemoteMemory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;

/**
 * The initiator side of a {@link StreamWire}'s one-sided operations: puts, gets, atomics and flushes written as
 * requests, and the responses matched to them. The target answers in request order, so one FIFO of awaited requests
 * is all the matching there is; a response that is not the head's breaks the connection.
 */
final class StreamRequests {

    private static final MemoryAccess MEMORY = Internals.memory();
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final StreamWriter writer;
    private final WireEventQueue events;
    private final String provider;
    private final int copyLimit;
    /** Requests (put, get, atomic, flush) waiting for their response, in the order the target answers them. */
    private final ArrayDeque<Op> awaiting = new ArrayDeque<>();
    private long nextRequestId = 1;

    StreamRequests(StreamWriter writer, WireEventQueue events, String provider, int copyLimit) {
        this.writer = writer;
        this.events = events;
        this.provider = provider;
        this.copyLimit = copyLimit;
    }

    /** Writes a put, get or atomic request; {@link Wire#POSTED}, or {@link Wire#NO_RESOURCE} to retry. */
    int post(Op op) {
        long id = nextRequestId;
        RemoteMemory r = op.remote();
        MemorySegment staging = writer.staging();
        switch (op.kind()) {
            case PUT -> {
                RegisteredSlice l = op.local();
                int len = (int) l.length();
                boolean copy = len <= copyLimit;
                if (!copy && !MEMORY.tryPin(l.region())) {
                    throw new InvalidMemoryException("local memory region was closed");
                }
                long at = writer.beginFrame(FrameKind.PUT, id, RmaRequest.BYTES + len,
                        RmaRequest.BYTES + (copy ? len : 0));
                if (at < 0) {
                    if (!copy) {
                        MEMORY.unpin(l.region());
                    }
                    return Wire.NO_RESOURCE;
                }
                RmaRequest.write(staging, at, r.address(), r.key(), len, 0, 0, 0, 0);
                if (copy) {
                    MemorySegment.copy(l.segment(), 0, staging, at + RmaRequest.BYTES, len);
                } else {
                    writer.appendPayload(l.segment(), len, null, l.region(), null);
                }
            }
            case GET -> {
                long at = writer.beginFrame(FrameKind.GET, id, RmaRequest.BYTES, RmaRequest.BYTES);
                if (at < 0) {
                    return Wire.NO_RESOURCE;
                }
                RmaRequest.write(staging, at, r.address(), r.key(), (int) op.local().length(), 0, 0, 0, 0);
            }
            case ATOMIC -> {
                long at = writer.beginFrame(FrameKind.ATOMIC, id, RmaRequest.BYTES, RmaRequest.BYTES);
                if (at < 0) {
                    return Wire.NO_RESOURCE;
                }
                RmaRequest.write(staging, at, r.address(), r.key(), op.width(), op.atomic().ordinal(), op.width(),
                        op.operand(), op.compare());
            }
            default -> throw new IllegalStateException("not an RMA op: " + op.kind());
        }
        return awaitResponse(op);
    }

    /** Writes a FLUSH, answered once the target processed every frame before it. */
    int flush(Op op) {
        if (writer.beginFrame(FrameKind.FLUSH, nextRequestId, 0, 0) < 0) {
            return Wire.NO_RESOURCE;
        }
        return awaitResponse(op);
    }

    private int awaitResponse(Op op) {
        op.wireTag = nextRequestId++;
        awaiting.addLast(op);
        writer.pump();
        return Wire.POSTED;
    }

    /** Where a GET_RESP's {@code length} bytes for request {@code id} land: the waiting get's own memory. */
    MemorySegment getResponseTarget(long id, long length) {
        Op op = awaiting.peekFirst();
        if (op == null || op.wireTag != id || op.kind() != OpKind.GET || op.local().length() != length) {
            throw new CreditProtocolException("unexpected GET_RESP of " + length + " bytes for request " + id);
        }
        return op.local().segment();
    }

    /**
     * A response for the oldest request waiting for one; {@code payload} is valid during the call only. One that
     * answers nothing waiting breaks the connection, unless the wire is {@code closed} (its requests failed already).
     */
    void onResponse(int kind, long id, MemorySegment payload, boolean closed) {
        Op op = awaiting.peekFirst();
        if (op == null || op.wireTag != id || !answers(op.kind(), kind)) {
            if (!closed) {
                throw new CreditProtocolException("unexpected " + FrameKind.name(kind) + " for request " + id);
            }
            return;
        }
        awaiting.pollFirst();
        switch (kind) {
            case FrameKind.RMA_ACK, FrameKind.FLUSH_ACK, FrameKind.GET_RESP -> events.completed(op, 0);
            case FrameKind.ATOMIC_RESP -> events.completed(op, payload.get(U64, 0));
            default -> { // RMA_ERR: the peer's text is kept as the native message, never trusted as ours
                String text = new String(payload.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
                events.failed(op, new RemoteAccessException(MemoryDomain.REFUSED, provider, 0, text, null));
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

    /** The wire closed: every request still waiting fails with {@code cause}. */
    void failAll(TransportException cause) {
        for (Op op : awaiting) {
            events.failed(op, cause);
        }
        awaiting.clear();
    }
}
