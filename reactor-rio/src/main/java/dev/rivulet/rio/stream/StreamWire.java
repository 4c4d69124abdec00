package dev.rivulet.rio.stream;

import dev.rivulet.core.Capabilities;
import dev.rivulet.core.engine.AtomicOp;
import dev.rivulet.core.engine.ControlWord;
import dev.rivulet.core.engine.Op;
import dev.rivulet.core.engine.OpKind;
import dev.rivulet.core.engine.Wire;
import dev.rivulet.core.engine.WireEvents;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.error.InvalidMemoryException;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RegisteredSlice;
import dev.rivulet.core.memory.RemoteMemory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
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
 * One receive at a time into the registered receive buffer; the {@link FrameParser} copies each payload into a
 * pooled buffer of the transport's domain, so the receive buffer is reposted at once. Where the channel can, the
 * rest of a payload of 16 KiB or more is received straight into that pooled buffer instead (no second copy), by a
 * scatter receive that continues into a little of the receive buffer. Messages go to the engine
 * (which checks the credits); RMA requests are executed here, on the target's progress thread, against its
 * registered memory through {@link MemoryDomain#resolveRemote} (key, rights, bounds, pin), and answered in order,
 * so the initiator matches responses with one FIFO.
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
public final class StreamWire implements Wire {

    private static final Logger log = LoggerFactory.getLogger(StreamWire.class);

    private static final int T_RECV = 1;
    private static final int T_SEND = 2;
    private static final int ID_MASK = (1 << 29) - 1;
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final long CLOSE_WORD = ControlWord.encode(ControlWord.CLOSE, 0);
    /** A gather write stops adding units once it holds this much: completions stay timely, memory bounded. */
    private static final long GATHER_BYTES = 1 << 20;
    /** A payload remainder at least this large is received straight into its buffer where the channel can. */
    private static final int DIRECT_RECEIVE_MIN = 16 << 10;
    /** How much of the receive buffer a scatter receive fills after the payload's rest. */
    private static final long SCATTER_TAIL = 4 << 10;

    private final StreamChannel channel;
    private final MemoryDomain memory;
    private final Capabilities caps;
    private final String remoteAddress;
    private final int copyLimit;
    private final int maxBatchBytes;
    private final FrameParser parser;
    private final FrameParser.Sink frameSink = this::onFrame;
    private final MemorySegment staging;
    private final MemorySegment receive;
    private final long stagingCapacity;
    private final long maxUnit;
    /** Whether the channel can receive into payload buffers (see {@link #DIRECT_RECEIVE_MIN}). */
    private final boolean scatterReceives;
    /** The start of the receive buffer that a scatter receive fills after the payload's rest. */
    private final MemorySegment scatterTail;
    /** Parts of the next gather write (length 1 where the channel writes one part at a time). */
    private final MemorySegment[] gather;

    // ---- send side ----
    /** Units not yet fully written, in stream order; the head is the one being written. */
    private final ArrayDeque<Unit> writes = new ArrayDeque<>();
    /** Staged units holding staging space, in allocation order (freed from the head). */
    private final ArrayDeque<Unit> stagedUnits = new ArrayDeque<>();
    private final ArrayDeque<Unit> freeUnits = new ArrayDeque<>();
    /** Responses that found the staging buffer full; sent before anything new. */
    private final ArrayDeque<Response> backlog = new ArrayDeque<>();
    /** Requests (put, get, atomic, flush) waiting for their response, in the order the target answers them. */
    private final ArrayDeque<Op> awaiting = new ArrayDeque<>();
    private Unit open;
    private long allocStart;
    private long allocEnd;
    private int nextUnitId;
    private long nextRequestId = 1;
    private boolean writeInFlight;
    private boolean sendRetry;

    // ---- receive side ----
    private boolean recvInFlight;
    /** Bytes of the receive in flight that go straight into the parser's current payload (scatter receive). */
    private int recvDirect;
    private boolean recvRetry;
    private boolean eof;
    private boolean peerCloseSeen;

    // ---- engine events ----
    private final ArrayDeque<Event> events = new ArrayDeque<>();
    private final ArrayDeque<Event> freeEvents = new ArrayDeque<>();

    // ---- lifecycle ----
    private boolean closed;
    private boolean broken;
    private boolean closeRequested;
    private boolean outputShut;
    private boolean hardStopped;
    private boolean released;

    /**
     * @param copyLimit     payloads up to this size are copied into the staging buffer (coalesced); larger ones are
     *                      sent from their own buffer
     * @param maxBatchBytes the engine's coalesced-frame limit
     */
    public StreamWire(StreamChannel channel, MemoryDomain memory, Capabilities caps, String remoteAddress,
                      int copyLimit, int maxBatchBytes) {
        this.channel = channel;
        this.memory = memory;
        this.caps = caps;
        this.remoteAddress = remoteAddress;
        this.staging = channel.stagingBuffer();
        this.receive = channel.receiveBuffer();
        this.stagingCapacity = staging.byteSize();
        this.maxUnit = stagingCapacity / 2;
        this.copyLimit = (int) Math.min(copyLimit, maxUnit - FrameHeader.BYTES - RmaRequest.BYTES);
        this.maxBatchBytes = maxBatchBytes;
        this.gather = new MemorySegment[Math.max(1, channel.maxGatherParts())];
        this.scatterReceives = channel.scatterReceives();
        this.scatterTail = receive.asSlice(0, Math.min(receive.byteSize(), SCATTER_TAIL));
        long maxPayload = Math.max(caps.maxMessageSize(), caps.maxRmaSize()) + RmaRequest.BYTES;
        this.parser = new FrameParser(memory::allocate, maxPayload);
    }

    /** Starts receiving; called once on the progress thread after the channel is attached. */
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
            appendPayload(b.capacitySegment().asSlice(0, len), b.retain(), null, op);
        }
        pump();
        return POSTED;
    }

    @Override
    public void postReceives(int count) {
        // Payload buffers are taken from the pool as frames arrive, sized to them; the engine's count of posted
        // receives is what bounds the peer, and the socket is always being read.
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
                if (!copy && !l.region().tryPin()) {
                    throw new InvalidMemoryException("local memory region was closed");
                }
                long at = beginFrame(FrameKind.PUT, id, RmaRequest.BYTES + len, RmaRequest.BYTES + (copy ? len : 0));
                if (at < 0) {
                    if (!copy) {
                        l.region().unpin();
                    }
                    return NO_RESOURCE;
                }
                RmaRequest.write(staging, at, r.address(), r.key(), len, 0, 0, 0, 0);
                if (copy) {
                    MemorySegment.copy(l.segment(), 0, staging, at + RmaRequest.BYTES, len);
                } else {
                    appendPayload(l.segment(), null, l.region(), null);
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
        if (sendRetry) {
            sendRetry = false;
            pump();
        }
        if (recvRetry) {
            recvRetry = false;
            postReceive();
        }
        drainBacklog();
        int n = 0;
        Event e;
        // The engine may close the endpoint from inside a callback and poll again (nested): that inner poll drains
        // the rest of the queue, so this loop just finds it empty.
        while ((e = events.pollFirst()) != null) {
            n++;
            int type = e.type;
            Op op = e.op;
            long value = e.value;
            Buffer buffer = e.buffer;
            TransportException error = e.error;
            e.clear();
            freeEvents.addLast(e);
            switch (type) {
                case Event.COMPLETED -> sink.completed(op, value);
                case Event.FAILED -> sink.failed(op, error);
                case Event.RECEIVED -> sink.received(value, buffer);
                case Event.BROKEN -> sink.broken(error);
                default -> throw new IllegalStateException("event " + type);
            }
        }
        return n;
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
        TransportException cause = new ResourceClosedException("endpoint closed before the operation completed");
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
            if (r.payload != null) {
                r.payload.release();
            }
        }
        freeStaging();
        if (broken) {
            hardStop();
        } else if (closeRequested) {
            beginFrame(FrameKind.MESSAGE, CLOSE_WORD, 0, 0);
        }
        pump();
        maybeRelease();
    }

    // =====================================================================================================
    // System layer completions
    // =====================================================================================================

    /** A completion of the channel (progress thread). */
    public void onCompletion(int token, int result, int flags) {
        if ((token & 3) == T_RECV) {
            onReceive(result);
        } else {
            onSend(token >>> 2, result, flags);
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
    public void abandon() {
        if (!closed) {
            close();
        }
        writeInFlight = false;
        recvInFlight = false;
        releaseBuffers();
        drainEventsOnAbandon();
    }

    private void onReceive(int res) {
        recvInFlight = false;
        int direct = recvDirect;
        recvDirect = 0;
        if (res > 0) {
            try {
                int intoPayload = Math.min(res, direct);
                if (intoPayload > 0) {
                    parser.filled(intoPayload, frameSink);
                }
                if (res > intoPayload) {
                    parser.feed(receive, 0, res - intoPayload, frameSink);
                }
            } catch (TransportException e) {
                breakConnection(e);
                hardStop();
                return;
            }
            if (!hardStopped) {
                postReceive();
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
            for (Op op : u.ops) {
                pushCompleted(op, 0);
            }
            u.ops.clear();
            if (!u.staged) {
                recycle(u);
            }
        }
        freeStaging();
        drainBacklog();
        pump();
        if (closed && writes.isEmpty() && !outputShut && !hardStopped) {
            shutdownOutput();
        }
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

    /** Appends a payload sent from its own memory; the header before it closes the current unit. */
    private void appendPayload(MemorySegment payload, Buffer owned, MemoryRegion pinned, Op sendOp) {
        open = null;
        Unit u = unit();
        u.staged = false;
        u.payload = payload;
        u.length = (int) payload.byteSize();
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
        if (gather.length > 1 && writes.size() > 1) {
            int count = 0;
            long bytes = 0;
            for (Unit w : writes) {
                if (count == gather.length || (count > 0 && bytes >= GATHER_BYTES)) {
                    break;
                }
                gather[count++] = remaining(w);
                bytes += w.length - w.sent;
            }
            boolean posted = channel.postGather(token, gather, count);
            java.util.Arrays.fill(gather, 0, count, null);
            if (posted) {
                writeInFlight = true;
            } else {
                sendRetry = true;
            }
            return;
        }
        if (channel.postSend(token, remaining(u), u.staged)) {
            writeInFlight = true;
        } else {
            sendRetry = true;
        }
    }

    /** The unwritten rest of {@code u}; a staged unit being written is sealed (later frames open the next one). */
    private MemorySegment remaining(Unit u) {
        if (u == open) {
            open = null;
        }
        return u.staged
                ? staging.asSlice(u.start + u.sent, u.length - u.sent)
                : u.payload.asSlice(u.sent, u.length - u.sent);
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
        if (u.owned != null) {
            u.owned.release();
        }
        if (u.pinned != null) {
            u.pinned.unpin();
        }
        u.clear();
        freeUnits.addLast(u);
    }

    // =====================================================================================================
    // Frames arriving
    // =====================================================================================================

    private void onFrame(int kind, long tag, Buffer payload) {
        switch (kind) {
            case FrameKind.MESSAGE -> {
                int type = ControlWord.type(tag);
                if (type == ControlWord.CLOSE) {
                    peerCloseSeen = true;
                }
                if (closed) {
                    release(payload);
                    return;
                }
                if (payload == null && (type == ControlWord.DATA || type == ControlWord.BATCH)) {
                    payload = memory.allocate(0).length(0); // an empty message is still a message
                }
                pushReceived(tag, payload);
            }
            case FrameKind.PUT, FrameKind.GET, FrameKind.ATOMIC -> {
                if (closed) {
                    release(payload);
                    return;
                }
                serve(kind, tag, payload);
            }
            case FrameKind.FLUSH -> {
                release(payload);
                if (!closed) {
                    respond(FrameKind.FLUSH_ACK, tag, null);
                }
            }
            default -> onResponse(kind, tag, payload);
        }
    }

    /** Executes an RMA request on this side's registered memory, as a NIC would, and answers it. */
    private void serve(int kind, long id, Buffer request) {
        if (request == null || request.length() < RmaRequest.BYTES) {
            release(request);
            breakConnection(new CreditProtocolException(FrameKind.name(kind) + " frame without its request"));
            return;
        }
        MemorySegment req = request.segment();
        long address = RmaRequest.address(req);
        long key = RmaRequest.key(req);
        try {
            switch (kind) {
                case FrameKind.PUT -> {
                    long len = request.length() - RmaRequest.BYTES;
                    Grant target = memory.resolveRemote(key, address, len, Access.REMOTE_WRITE, this);
                    try {
                        MemorySegment.copy(req, RmaRequest.BYTES, target.window(), target.offsetOf(address), len);
                    } finally {
                        target.unpin();
                    }
                    respond(FrameKind.RMA_ACK, id, null);
                }
                case FrameKind.GET -> {
                    long len = RmaRequest.length(req);
                    Grant target = memory.resolveRemote(key, address, len, Access.REMOTE_READ, this);
                    Buffer out;
                    try {
                        out = memory.allocate((int) len);
                        out.length((int) len);
                        MemorySegment.copy(target.window(), target.offsetOf(address), out.capacitySegment(), 0, len);
                    } finally {
                        target.unpin();
                    }
                    respond(FrameKind.GET_RESP, id, out);
                }
                default -> {
                    long previous = atomic(req, key, address);
                    Buffer out = memory.allocate(8).length(8);
                    out.capacitySegment().set(U64, 0, previous);
                    respond(FrameKind.ATOMIC_RESP, id, out);
                }
            }
        } catch (TransportException e) {
            byte[] text = String.valueOf(e.getMessage()).getBytes(StandardCharsets.UTF_8);
            respond(FrameKind.RMA_ERR, id, memory.allocate(text.length).write(text));
        } finally {
            request.release();
        }
    }

    private long atomic(MemorySegment req, long key, long address) {
        int width = RmaRequest.width(req);
        int which = RmaRequest.atomic(req);
        if ((width != 4 && width != 8) || which < 0 || which >= AtomicOp.values().length) {
            throw new RemoteAccessException(MemoryDomain.REFUSED);
        }
        AtomicOp op = AtomicOp.values()[which];
        long operand = RmaRequest.operand(req);
        long compare = RmaRequest.compare(req);
        Grant target = memory.resolveRemote(key, address, width, Access.REMOTE_ATOMIC, this);
        try {
            MemorySegment seg = target.window();
            long off = target.offsetOf(address);
            if (width == 8) {
                return switch (op) {
                    case ADD, FETCH_ADD -> (long) LONG.getAndAdd(seg, off, operand);
                    case SWAP -> (long) LONG.getAndSet(seg, off, operand);
                    case COMPARE_SWAP -> (long) LONG.compareAndExchange(seg, off, compare, operand);
                };
            }
            int v = (int) operand;
            return switch (op) {
                case ADD, FETCH_ADD -> (int) INT.getAndAdd(seg, off, v);
                case SWAP -> (int) INT.getAndSet(seg, off, v);
                case COMPARE_SWAP -> (int) INT.compareAndExchange(seg, off, (int) compare, v);
            };
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new RemoteAccessException(MemoryDomain.REFUSED, e);
        } finally {
            target.unpin();
        }
    }

    /** A response for the oldest request waiting for one. */
    private void onResponse(int kind, long id, Buffer payload) {
        Op op = awaiting.peekFirst();
        if (op == null || op.wireTag != id || !answers(op.kind(), kind)) {
            release(payload);
            if (!closed) {
                breakConnection(new CreditProtocolException("unexpected " + FrameKind.name(kind) + " for request "
                        + id));
            }
            return;
        }
        awaiting.pollFirst();
        try {
            switch (kind) {
                case FrameKind.RMA_ACK, FrameKind.FLUSH_ACK -> pushCompleted(op, 0);
                case FrameKind.GET_RESP -> {
                    RegisteredSlice local = op.local();
                    long len = payload == null ? 0 : payload.length();
                    if (len != local.length()) {
                        pushFailed(op, new CreditProtocolException("get answered with " + len + " bytes, asked for "
                                + local.length()));
                    } else {
                        if (len > 0) {
                            MemorySegment.copy(payload.segment(), 0, local.segment(), 0, len);
                        }
                        pushCompleted(op, 0);
                    }
                }
                case FrameKind.ATOMIC_RESP -> {
                    if (payload == null || payload.length() != 8) {
                        pushFailed(op, new CreditProtocolException("malformed atomic response"));
                    } else {
                        pushCompleted(op, payload.segment().get(U64, 0));
                    }
                }
                default -> { // RMA_ERR
                    String text = payload == null ? "remote access refused" : payload.toUtf8();
                    pushFailed(op, new RemoteAccessException(text, channel.provider(), 0, text, null));
                }
            }
        } finally {
            release(payload);
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

    /** Sends a response, in order behind earlier ones; takes ownership of {@code payload}. */
    private void respond(int kind, long id, Buffer payload) {
        if (backlog.isEmpty() && tryRespond(kind, id, payload)) {
            pump();
            return;
        }
        backlog.addLast(new Response(kind, id, payload));
    }

    private boolean tryRespond(int kind, long id, Buffer payload) {
        int len = payload == null ? 0 : payload.length();
        boolean copy = len <= copyLimit;
        long at = beginFrame(kind, id, len, copy ? len : 0);
        if (at < 0) {
            return false;
        }
        if (payload != null) {
            if (copy) {
                MemorySegment.copy(payload.capacitySegment(), 0, staging, at, len);
                payload.release();
            } else {
                appendPayload(payload.capacitySegment().asSlice(0, len), payload, null, null);
            }
        }
        return true;
    }

    /** Sends waiting responses; true when none is left waiting. */
    private boolean drainBacklog() {
        if (backlog.isEmpty()) {
            return true;
        }
        Response r;
        boolean any = false;
        while ((r = backlog.peekFirst()) != null && !closed && tryRespond(r.kind, r.id, r.payload)) {
            backlog.pollFirst();
            any = true;
        }
        if (any) {
            pump();
        }
        return backlog.isEmpty();
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
        if (recvInFlight || eof || hardStopped || released) {
            return;
        }
        // The rest of a large payload is received straight into its buffer, one copy (the kernel's) instead of
        // two, and only a little into the receive buffer after it: enough for the next header and small frames,
        // little of the next large payload (which then goes the same way). Smaller remainders, and everything on
        // channels without scatter receives, go through the receive buffer.
        int direct = scatterReceives ? parser.payloadRemaining() : 0;
        boolean posted = direct >= DIRECT_RECEIVE_MIN
                ? channel.postScatterReceive(T_RECV, parser.payloadRemainder(), scatterTail)
                : channel.postReceive(T_RECV, receive);
        if (posted) {
            recvInFlight = true;
            recvDirect = direct >= DIRECT_RECEIVE_MIN ? direct : 0;
        } else {
            recvRetry = true;
        }
    }

    private void breakConnection(TransportException cause) {
        if (broken || closed) {
            return;
        }
        broken = true;
        Event e = event(Event.BROKEN);
        e.error = cause;
    }

    /** Stops all I/O: what is posted completes with an error, nothing new is posted. */
    private void hardStop() {
        if (hardStopped) {
            return;
        }
        hardStopped = true;
        channel.shutdown(true);
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
        } // else the kernel may still write into the payload: systemGone() releases it
    }

    /**
     * The system layer is gone (ring closed), so no posted receive can write any more: releases a payload that an
     * abandoned receive was still aimed at.
     */
    public void systemGone() {
        recvInFlight = false;
        recvDirect = 0;
        parser.close();
    }

    private void drainEventsOnAbandon() {
        Event e;
        while ((e = events.pollFirst()) != null) {
            if (e.buffer != null) {
                e.buffer.release();
            }
            e.clear();
        }
    }

    private static void release(Buffer b) {
        if (b != null) {
            b.release();
        }
    }

    // ---- engine events ----

    private Event event(int type) {
        Event e = freeEvents.pollFirst();
        if (e == null) {
            e = new Event();
        }
        e.type = type;
        events.addLast(e);
        return e;
    }

    private void pushCompleted(Op op, long value) {
        Event e = event(Event.COMPLETED);
        e.op = op;
        e.value = value;
    }

    private void pushFailed(Op op, TransportException error) {
        Event e = event(Event.FAILED);
        e.op = op;
        e.error = error;
    }

    private void pushReceived(long word, Buffer payload) {
        Event e = event(Event.RECEIVED);
        e.value = word;
        e.buffer = payload;
    }

    /** What the engine is told at its next poll. */
    private static final class Event {
        static final int COMPLETED = 1;
        static final int FAILED = 2;
        static final int RECEIVED = 3;
        static final int BROKEN = 4;

        int type;
        Op op;
        long value;
        Buffer buffer;
        TransportException error;

        void clear() {
            type = 0;
            op = null;
            value = 0;
            buffer = null;
            error = null;
        }
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
        }
    }

    private record Response(int kind, long id, Buffer payload) {
    }
}
