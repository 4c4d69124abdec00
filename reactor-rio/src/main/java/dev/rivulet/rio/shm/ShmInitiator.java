package dev.rivulet.rio.shm;

import dev.rivulet.core.engine.Op;
import dev.rivulet.core.engine.OpKind;
import dev.rivulet.core.engine.Wire;
import dev.rivulet.core.engine.WireEventQueue;
import dev.rivulet.core.error.ProviderException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.core.remote.SoftwareTarget;
import dev.rivulet.rio.shm.sys.CrossMemory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The initiator side of a {@link ShmWire}'s one-sided operations. A grant the peer let this side map
 * ({@link MappedWindow}) is used directly: a put or get is a copy into or out of the mapping, an atomic a
 * {@code VarHandle} atomic on it, whenever nothing of this connection is still on its way (so the orderings the
 * transport promises hold). Everything else is a request the target serves ({@link ShmRequestServer}); its answers
 * come back in request order, matched here against one FIFO of what is awaited (operations and map requests).
 */
final class ShmInitiator {

    private static final Logger log = LoggerFactory.getLogger(ShmInitiator.class);

    /** Keys remembered as not mappable at most. */
    private static final int MAX_REMEMBERED_KEYS = 4096;

    private final ShmConnection conn;
    private final ShmOutbox outbox;
    private final ShmInbox inbox;
    private final WireEventQueue events;
    private final int threshold;
    private final boolean crossMemory;
    private final boolean mapWindows;
    /** Operations and map requests waiting for their answer, in request order. */
    private final ArrayDeque<Object> awaiting = new ArrayDeque<>();
    private long nextRequestId = 1;
    private int mapRequests;
    private final Map<Long, MappedWindow> mapped = new HashMap<>();
    private final Map<Long, MappedWindow> mappedById = new HashMap<>();
    /** Keys whose grant the owner would not let this side map: never asked again. */
    private final Map<Long, Boolean> unmappable = new HashMap<>();

    ShmInitiator(ShmConnection conn, ShmOutbox outbox, ShmInbox inbox, WireEventQueue events, int threshold,
                 boolean crossMemory, boolean mapWindows) {
        this.conn = conn;
        this.outbox = outbox;
        this.inbox = inbox;
        this.events = events;
        this.threshold = threshold;
        this.crossMemory = crossMemory;
        this.mapWindows = mapWindows;
    }

    /** A put, get or atomic: through a mapping when it may, else as a request (asking for a mapping on the way). */
    int rma(Op op) {
        RemoteMemory remote = op.remote();
        MappedWindow w = mapped.get(remote.key());
        if (w != null && awaiting.isEmpty() && conn.out.drained()) {
            int rc = throughMapping(op, w);
            if (rc >= 0) {
                return rc;
            }
        } else if (w == null && mapWindows && !unmappable.containsKey(remote.key())) {
            if (!Arrays.equals(remote.providerBytes(), SharedRegions.MAPPABLE)) {
                decided(remote.key()); // memory from elsewhere, a ragged window: the owner would not map it
            } else if (mapRequests < ShmWire.MAX_MAP_REQUESTS && mapped.size() < ShmWire.MAX_MAPPINGS) {
                requestMapping(remote);
            }
        }
        return request(op);
    }

    /** A flush: answered once the target processed everything before it. */
    int flush(Op op) {
        long id = nextRequestId;
        if (conn.out.claim(Records.FLUSH, id, 0) < 0) {
            return outbox.blockedOnRoom();
        }
        nextRequestId++;
        op.wireTag = id;
        awaiting.addLast(op);
        outbox.published();
        return Wire.POSTED;
    }

    /** Remembers that {@code key} is not to be mapped (bounded: forgetting only costs asking again). */
    private void decided(long key) {
        if (unmappable.size() >= MAX_REMEMBERED_KEYS) {
            unmappable.clear();
        }
        unmappable.put(key, Boolean.TRUE);
    }

    /** A put, get or atomic on a window the peer let this side map: done here and now. -1: serve it as a request. */
    private int throughMapping(Op op, MappedWindow w) {
        RemoteMemory r = op.remote();
        long offset = r.address() - w.base();
        try {
            switch (op.kind()) {
                case PUT -> {
                    long n = op.local().length();
                    if (!w.allows(Access.REMOTE_WRITE) || !w.covers(r.address(), n)) {
                        return -1;
                    }
                    MemorySegment.copy(op.local().segment(), 0, w.segment(), offset, n);
                    return Wire.DONE;
                }
                case GET -> {
                    long n = op.local().length();
                    if (!w.allows(Access.REMOTE_READ) || !w.covers(r.address(), n)) {
                        return -1;
                    }
                    MemorySegment.copy(w.segment(), offset, op.local().segment(), 0, n);
                    return Wire.DONE;
                }
                case ATOMIC -> {
                    if (!w.allows(Access.REMOTE_ATOMIC) || !w.covers(r.address(), op.width())) {
                        return -1;
                    }
                    // The value must reach the engine, which only a completion event carries.
                    events.completed(op, op.atomic().applyTo(w.segment(), offset, op.width(), op.operand(),
                            op.compare()));
                    return Wire.POSTED;
                }
                default -> {
                    return -1;
                }
            }
        } catch (InternalError | IllegalStateException e) {
            // The owner freed the region under a mapping it had told us to drop: forget it, refuse this access.
            dropMapping(w);
            throw SoftwareTarget.refused(e);
        }
    }

    private void requestMapping(RemoteMemory r) {
        long id = nextRequestId;
        long at = conn.out.claim(Records.MAP, id, Records.MAP_REQUEST_BYTES);
        if (at < 0) {
            return; // no room: this operation goes as a request anyway, a later one asks again
        }
        MemorySegment d = conn.out.data();
        d.set(ValueLayout.JAVA_LONG, at, r.key());
        d.set(ValueLayout.JAVA_LONG, at + 8, r.address());
        d.set(ValueLayout.JAVA_LONG, at + 16, r.length());
        nextRequestId++;
        mapRequests++;
        unmappable.put(r.key(), Boolean.FALSE); // asked: not again until answered
        awaiting.addLast(new MapRequest(id, r.key()));
        outbox.published();
    }

    /** A put, get or atomic the target serves. */
    private int request(Op op) {
        long id = nextRequestId;
        RemoteMemory r = op.remote();
        MemorySegment d = conn.out.data();
        long at;
        switch (op.kind()) {
            case PUT -> {
                long n = op.local().length();
                int mode = n <= threshold ? Records.INLINE : crossMemory ? Records.CROSS_MEMORY : Records.STAGED_DATA;
                int payload = Records.RMA_REQUEST_BYTES + (mode == Records.INLINE ? (int) n : 0);
                at = conn.out.claim(Records.PUT, id, payload);
                if (at < 0) {
                    return outbox.blockedOnRoom();
                }
                rmaRequest(d, at, r, n, mode);
                if (mode == Records.INLINE) {
                    MemorySegment.copy(op.local().segment(), 0, d, at + Records.RMA_REQUEST_BYTES, n);
                } else if (mode == Records.STAGED_DATA) {
                    outbox.startPut(op, op.local().segment(), n);
                }
            }
            case GET -> {
                long n = op.local().length();
                at = conn.out.claim(Records.GET, id, Records.RMA_REQUEST_BYTES);
                if (at < 0) {
                    return outbox.blockedOnRoom();
                }
                rmaRequest(d, at, r, n, n > threshold && crossMemory ? Records.CROSS_MEMORY : Records.COPY);
            }
            case ATOMIC -> {
                at = conn.out.claim(Records.ATOMIC, id, Records.ATOMIC_REQUEST_BYTES);
                if (at < 0) {
                    return outbox.blockedOnRoom();
                }
                d.set(ValueLayout.JAVA_LONG, at, r.key());
                d.set(ValueLayout.JAVA_LONG, at + 8, r.address());
                d.set(ValueLayout.JAVA_LONG, at + 16, op.operand());
                d.set(ValueLayout.JAVA_LONG, at + 24, op.compare());
                d.set(ValueLayout.JAVA_INT, at + 32, op.atomic().ordinal());
                d.set(ValueLayout.JAVA_INT, at + 36, op.width());
            }
            default -> throw new IllegalStateException("not a one-sided op: " + op.kind());
        }
        nextRequestId++;
        op.wireTag = id;
        awaiting.addLast(op);
        outbox.published();
        if (outbox.transferring()) {
            outbox.pumpTransfer();
        }
        return Wire.POSTED;
    }

    private static void rmaRequest(MemorySegment d, long at, RemoteMemory r, long length, int mode) {
        d.set(ValueLayout.JAVA_LONG, at, r.key());
        d.set(ValueLayout.JAVA_LONG, at + 8, r.address());
        d.set(ValueLayout.JAVA_LONG, at + 16, length);
        d.set(ValueLayout.JAVA_LONG, at + 24, mode);
    }

    // ------------------------------------------------------------------------------------- answers to our requests

    /** An answer record; it must answer the oldest request awaited. */
    void onAnswer(int kind, long id, MemorySegment d, long at, int length) {
        Object head = awaiting.peekFirst();
        long headId = head instanceof Op o ? o.wireTag : head instanceof MapRequest m ? m.id : -1;
        if (head == null || headId != id) {
            throw new ShmProtocolException("answer " + kind + " to request " + id + " where " + headId + " is due");
        }
        inbox.requireIdle("an answer");
        awaiting.pollFirst();
        if (head instanceof MapRequest m) {
            onMapAnswer(m, kind, d, at, length);
            return;
        }
        Op op = (Op) head;
        switch (kind) {
            case Records.REFUSED -> events.failed(op, SoftwareTarget.refused());
            case Records.OK -> {
                expect(op, kind, op.kind() == OpKind.PUT || op.kind() == OpKind.FLUSH);
                events.completed(op, 0);
            }
            case Records.VALUE -> {
                expect(op, kind, op.kind() == OpKind.ATOMIC);
                events.completed(op, ShmInbox.fixed(d, at, length, 8));
            }
            case Records.DATA -> {
                expect(op, kind, op.kind() == OpKind.GET && length == op.local().length());
                MemorySegment.copy(d, at, op.local().segment(), 0, length);
                events.completed(op, 0);
            }
            case Records.STAGED -> {
                long total = ShmInbox.fixed(d, at, length, 8);
                expect(op, kind, op.kind() == OpKind.GET && total == op.local().length() && total > 0);
                StagedTransfer.Incoming in = new StagedTransfer.Incoming().set(StagedTransfer.GET_ANSWER, total);
                in.op = op;
                in.destination = op.local().segment();
                inbox.expect(in);
            }
            case Records.GO -> {
                expect(op, kind, op.kind() == OpKind.PUT || op.kind() == OpKind.GET);
                copyAcross(op, ShmInbox.fixed(d, at, length, 8));
            }
            default -> throw new ShmProtocolException("answer " + kind + " to a " + op.kind());
        }
    }

    private static void expect(Op op, int kind, boolean fits) {
        if (!fits) {
            throw new ShmProtocolException("answer " + kind + " does not fit the " + op.kind() + " it answers");
        }
    }

    /** The target allowed this side to copy to or from {@code target} in its memory, once: copy, then say so. */
    private void copyAcross(Op op, long target) {
        long n = op.local().length();
        long local = op.local().segment().address();
        long r = op.kind() == OpKind.PUT ? CrossMemory.write((int) conn.peerPid, local, target, n)
                : CrossMemory.read((int) conn.peerPid, local, target, n);
        outbox.notice(Records.DONE, op.wireTag);
        if (r == n) {
            events.completed(op, 0);
        } else {
            events.failed(op, new ProviderException("process_vm_"
                    + (op.kind() == OpKind.PUT ? "writev" : "readv") + " copied "
                    + (r < 0 ? "nothing (errno " + -r + ")" : r + " of " + n + " bytes")));
        }
    }

    private void onMapAnswer(MapRequest m, int kind, MemorySegment d, long at, int length) {
        mapRequests--;
        if (kind == Records.REFUSED) {
            decided(m.key);
            return;
        }
        if (kind != Records.MAPPED || length != Records.MAPPED_BYTES) {
            throw new ShmProtocolException("answer " + kind + " to a map request");
        }
        long mapId = d.get(ValueLayout.JAVA_LONG, at);
        long fileOffset = d.get(ValueLayout.JAVA_LONG, at + 8);
        long n = Records.third(d, at);
        long base = Records.fourth(d, at);
        int fd = d.get(ValueLayout.JAVA_INT, at + 32);
        int rights = d.get(ValueLayout.JAVA_INT, at + 36);
        try {
            MappedWindow w = MappedWindow.map(mapId, m.key, base, n, rights, conn.peerPid, fd, fileOffset);
            MappedWindow old = mapped.put(m.key, w);
            if (old != null) {
                dropMapping(old);
                outbox.notice(Records.UNMAPPED, old.mapId());
            }
            mappedById.put(mapId, w);
            unmappable.remove(m.key);
        } catch (IOException | RuntimeException e) {
            log.debug("could not map a window of the peer's shared memory ({}); its requests are served instead",
                    e.toString());
            decided(m.key);
            outbox.notice(Records.UNMAPPED, mapId);
        }
    }

    /** The owner asks this side to unmap mapping {@code mapId} (its grant was revoked): done, and confirmed. */
    void onUnmap(long mapId) {
        MappedWindow w = mappedById.get(mapId);
        if (w != null) {
            dropMapping(w);
            outbox.notice(Records.UNMAPPED, mapId);
        }
    }

    private void dropMapping(MappedWindow w) {
        mappedById.remove(w.mapId());
        mapped.remove(w.key(), w);
        w.unmap();
    }

    /**
     * The wire closed: every operation awaited fails with {@code cause}, and every mapping goes (this side never
     * touches them again; the owner releases its pins when the connection's socket ends).
     */
    void close(TransportException cause) {
        Object o;
        while ((o = awaiting.pollFirst()) != null) {
            if (o instanceof Op op) {
                events.failed(op, cause);
            }
        }
        for (MappedWindow w : mapped.values()) {
            w.unmap();
        }
        mapped.clear();
        mappedById.clear();
    }

    /** A map request in flight (it has no operation of its own). */
    private record MapRequest(long id, long key) {
    }
}
