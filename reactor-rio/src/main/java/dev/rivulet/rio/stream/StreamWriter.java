package dev.rivulet.rio.stream;

import dev.rivulet.core.engine.LivenessMonitor;
import dev.rivulet.core.engine.Op;
import dev.rivulet.core.engine.WireEventQueue;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.internal.MemoryAccess;
import dev.rivulet.core.loop.ProgressLoop;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryRegion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;

/**
 * The send side of a {@link StreamWire}: the byte stream going out, one write in flight.
 *
 * <p>Small frames (headers, RMA requests, responses, payloads up to the copy limit) are copied into the registered
 * staging buffer, where they accumulate into a <em>unit</em> while the previous write is in flight: the coalescing
 * TCP would otherwise do with Nagle, without its delay. A larger payload is not copied: its header closes the current
 * unit and the payload follows as a unit of its own, sent straight from its registered buffer. Where the channel has
 * a gather send, the next write takes every waiting unit up to {@link #GATHER_BYTES} as one gather list. A unit's
 * operations complete when the kernel took all of its bytes; staging space is reused after that, and after the
 * zero-copy notification where the system layer sends the staging buffer zero-copy.
 */
final class StreamWriter {

    private static final MemoryAccess MEMORY = Internals.memory();
    private static final Logger log = LoggerFactory.getLogger(StreamWriter.class);

    /** Token bits of a send completion (the unit's id is above them). */
    static final int T_SEND = 2;
    private static final int ID_MASK = (1 << 29) - 1;
    /** A gather write stops adding units once it holds this much: completions stay timely, memory bounded. */
    private static final long GATHER_BYTES = 1 << 20;

    private final StreamChannel channel;
    private final ProgressLoop loop;
    private final LivenessMonitor liveness;
    private final WireEventQueue events;
    private final MemorySegment staging;
    private final long stagingCapacity;
    private final long maxUnit;
    /**
     * Parts of the next gather write (length 1 where the channel writes one part at a time), as buffer, offset and
     * length: slices would be one object per part and write.
     */
    private final MemorySegment[] gatherBuffers;
    private final long[] gatherOffsets;
    private final int[] gatherLengths;

    /** Units not yet fully written, in stream order; the head is the one being written. */
    private final ArrayDeque<Unit> writes = new ArrayDeque<>();
    /** Staged units holding staging space, in allocation order (freed from the head). */
    private final ArrayDeque<Unit> stagedUnits = new ArrayDeque<>();
    private final ArrayDeque<Unit> freeUnits = new ArrayDeque<>();
    private Unit open;
    private long allocStart;
    private long allocEnd;
    private int nextUnitId;
    private boolean writeInFlight;
    /** Bytes of large get answers copied into pooled buffers and not yet written. */
    private long responseBytes;
    private boolean retry;
    /** Nothing more is written: the socket is stopped, or the wire released. */
    private boolean stopped;

    StreamWriter(StreamChannel channel, ProgressLoop loop, LivenessMonitor liveness, WireEventQueue events) {
        this.channel = channel;
        this.loop = loop;
        this.liveness = liveness;
        this.events = events;
        this.staging = channel.stagingBuffer();
        this.stagingCapacity = staging.byteSize();
        this.maxUnit = stagingCapacity / 2;
        int parts = Math.max(1, channel.maxGatherParts());
        this.gatherBuffers = new MemorySegment[parts];
        this.gatherOffsets = new long[parts];
        this.gatherLengths = new int[parts];
    }

    /** The registered buffer frames are staged in (between {@link #beginFrame} and the next one). */
    MemorySegment staging() {
        return staging;
    }

    /** The largest unit: a staged frame never exceeds it. */
    long maxUnit() {
        return maxUnit;
    }

    /**
     * Reserves a frame in the staging buffer: the header plus {@code stagedBytes} more, and writes the header.
     * Returns the staging offset just after the header, or -1 when the buffer is full.
     */
    long beginFrame(int kind, long tag, int bodyLength, int stagedBytes) {
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

    /** Whether a frame of {@code bytes} (header included) fits in the staging buffer now. */
    boolean hasRoom(long bytes) {
        return alloc(bytes) >= 0;
    }

    /** {@code op} (a send copied into the frame just begun) completes when that frame is written. */
    void completesWithFrame(Op op) {
        open.ops.add(op);
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
     * current unit. {@code owned} is released and {@code pinned} unpinned once it is written; {@code sendOp}
     * completes then.
     */
    void appendPayload(MemorySegment payload, int length, Buffer owned, MemoryRegion pinned, Op sendOp) {
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

    /** Appends a large get answer copied into {@code copy}; counted in {@link #responseBytes()} until written. */
    void appendResponse(Buffer copy, int length) {
        appendPayload(copy.capacitySegment(), length, copy, null, null);
        writes.peekLast().responseBytes = length;
        responseBytes += length;
    }

    /** Bytes of large get answers copied out and not yet written. */
    long responseBytes() {
        return responseBytes;
    }

    /**
     * Starts the next write unless one is in flight: the head unit alone, or, where the channel gathers and more
     * units wait, the head and those behind it (up to {@link #GATHER_BYTES}) as one gather write. Gathering is what
     * keeps a large message from costing two round trips through the kernel (its staged header, then its payload),
     * and lets a backlog of them leave in one system call, as the bytes of one TCP stream.
     */
    void pump() {
        if (writeInFlight || stopped) {
            return;
        }
        Unit u = writes.peekFirst();
        if (u == null) {
            return;
        }
        int token = (u.id << 2) | T_SEND;
        boolean posted;
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
            posted = channel.postGather(token, gatherBuffers, gatherOffsets, gatherLengths, count);
            Arrays.fill(gatherBuffers, 0, count, null);
        } else {
            int n = remaining(u, 0);
            posted = channel.postSend(token, gatherBuffers[0], gatherOffsets[0], n, u.staged);
            gatherBuffers[0] = null;
        }
        if (posted) {
            writeInFlight = true;
            liveness.writeStarted(loop.coarseNanos());
        } else {
            retry = true;
        }
    }

    /** Retries a write the channel could not take at the last {@link #pump} (its queue was full). */
    void retryIfRefused() {
        if (retry) {
            retry = false;
            pump();
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

    /** {@link #onSend}: bytes were written (or a notification freed staging space). */
    static final int SENT = 0;
    /** {@link #onSend}: the send failed ({@code res} is a negated error number); the connection must end. */
    static final int FAILED = 1;
    /** {@link #onSend}: a completion that matches nothing written (logged, nothing changed). */
    static final int STRAY = 2;

    /**
     * A send completion of unit {@code id}: {@code res} bytes taken from the front (whole units complete, a short
     * write leaves the rest of one at the head), or a zero-copy notification. Returns {@link #SENT},
     * {@link #FAILED} or {@link #STRAY}.
     */
    int onSend(int id, int res, int flags) {
        if ((flags & StreamChannel.F_NOTIF) != 0) {
            for (Unit u : stagedUnits) {
                if (u.id == id && u.notifs > 0) {
                    u.notifs--;
                    break;
                }
            }
            freeStaging();
            return SENT;
        }
        Unit u = writes.peekFirst();
        writeInFlight = false;
        if (u == null || u.id != id) {
            log.warn("send completion for unit {} does not match the head of the write queue", id);
            return STRAY;
        }
        if ((flags & StreamChannel.F_MORE) != 0) {
            u.notifs++; // only a single-unit zero-copy send has a notification to come
        }
        if (res < 0) {
            return FAILED;
        }
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
                events.completed(u.ops.get(i), 0);
            }
            u.ops.clear();
            if (!u.staged) {
                recycle(u);
            }
        }
        freeStaging();
        return SENT;
    }

    /** After a completed write: the next one, and the write timeout restarted for it. */
    void writeProgressed() {
        pump();
        liveness.writeProgressed(loop.coarseNanos(), writeInFlight);
    }

    /**
     * The wire closed: every send still queued fails with {@code cause}, and the queue is cut at a frame boundary,
     * keeping only what the socket has started on (the unit in flight, and the payload whose header it carries).
     */
    void cutAtFrameBoundary(TransportException cause) {
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
                events.failed(op, cause);
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
        freeStaging();
    }

    /** Whether everything queued was written. */
    boolean idle() {
        return writes.isEmpty();
    }

    /** Whether a write is in the system layer. */
    boolean writeInFlight() {
        return writeInFlight;
    }

    /** Whether a zero-copy send may still read the staging buffer. */
    boolean notificationsPending() {
        for (Unit u : stagedUnits) {
            if (u.notifs > 0) {
                return true;
            }
        }
        return false;
    }

    /** Nothing more is written from now on. */
    void stop() {
        stopped = true;
    }

    /** The system layer forgot the write in flight (the transport went away with its rings). */
    void forgetWriteInFlight() {
        writeInFlight = false;
    }

    /** Stops writing and gives back every buffer and pin the queued writes hold. */
    void release() {
        stopped = true;
        for (Unit u : writes) {
            if (!u.staged) {
                recycle(u);
            }
        }
        writes.clear();
        stagedUnits.clear();
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
}
