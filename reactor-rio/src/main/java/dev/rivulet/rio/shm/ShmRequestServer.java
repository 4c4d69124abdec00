package dev.rivulet.rio.shm;

import dev.rivulet.core.engine.AtomicOp;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.remote.SoftwareTarget;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The target side of a {@link ShmWire}'s one-sided operations: the peer's puts, gets, atomics, flushes and map
 * requests, served on the progress thread after the connection's {@link SoftwareTarget} checked key, connection,
 * right and window. Small data travels in the request or the answer, larger data through the staging pool, or,
 * where enabled and permitted, the answer names the address the initiator copies from or to with
 * {@code process_vm_readv/writev}, and the grant stays pinned until it says it is done ({@code DONE}). A mapped
 * window's grant stays pinned until the peer unmapped it. Answers go out in request order ({@link ShmOutbox}).
 */
final class ShmRequestServer {

    private final ShmWire wire;
    private final SoftwareTarget target;
    private final ShmOutbox outbox;
    private final ShmInbox inbox;
    private final SharedRegions regions;
    private final long maxRmaSize;
    private final int threshold;
    private final boolean offersCrossMemory;
    /** Requests the peer said it keeps in flight at most. */
    private final int maxAnswers;
    /** Windows the peer mapped, by mapping id: their grants, pinned, and their keys. */
    private final Map<Long, Grant> exported = new HashMap<>();
    private final Map<Long, Long> exportedKeys = new HashMap<>();
    private long nextMapId = 1;
    /** Grants the peer was allowed to copy to or from, by request id, pinned until it says it is done. */
    private final Map<Long, Grant> copyGrants = new HashMap<>();

    ShmRequestServer(ShmWire wire, SoftwareTarget target, ShmOutbox outbox, ShmInbox inbox, SharedRegions regions,
                     long maxRmaSize, int threshold, boolean offersCrossMemory, int maxAnswers) {
        this.wire = wire;
        this.target = target;
        this.outbox = outbox;
        this.inbox = inbox;
        this.regions = regions;
        this.maxRmaSize = maxRmaSize;
        this.threshold = threshold;
        this.offersCrossMemory = offersCrossMemory;
        this.maxAnswers = maxAnswers;
    }

    /** A request record of {@code kind} ({@code PUT}, {@code GET}, {@code ATOMIC}, {@code FLUSH} or {@code MAP}). */
    void onRequest(int kind, long id, MemorySegment d, long at, int length) {
        inbox.requireIdle("a request");
        // Answers owed (some are unmap notices, which the peer does not count) and copies it was allowed to make.
        if (outbox.answersOwed() + copyGrants.size() >= 2 * maxAnswers + ShmWire.MAX_MAPPINGS) {
            throw new ShmProtocolException("more requests in flight than the " + maxAnswers + " announced");
        }
        switch (kind) {
            case Records.FLUSH -> {
                if (length != 0) {
                    throw new ShmProtocolException("flush with a payload");
                }
                outbox.answer(Records.OK, id); // after every answer before it: everything earlier was processed
            }
            case Records.PUT -> servePut(id, d, at, length);
            case Records.GET -> serveGet(id, d, at, length);
            case Records.ATOMIC -> serveAtomic(id, d, at, length);
            default -> serveMap(id, d, at, length);
        }
    }

    private void servePut(long id, MemorySegment d, long at, int length) {
        if (length < Records.RMA_REQUEST_BYTES) {
            throw new ShmProtocolException("put request of " + length + " bytes");
        }
        long key = Records.key(d, at);
        long address = Records.address(d, at);
        long n = Records.third(d, at);
        long mode = Records.fourth(d, at);
        if (n < 0 || n > maxRmaSize) {
            throw new ShmProtocolException("put of " + n + " bytes");
        }
        if (mode == Records.INLINE) {
            if (length != Records.RMA_REQUEST_BYTES + n) {
                throw new ShmProtocolException("inline put of " + n + " bytes in a record of " + length);
            }
            boolean applied = target.tryPut(key, address, d, at + Records.RMA_REQUEST_BYTES, n);
            outbox.answer(applied ? Records.OK : Records.REFUSED, id);
            return;
        }
        if (mode != Records.STAGED_DATA && mode != Records.CROSS_MEMORY) {
            throw new ShmProtocolException("put mode " + mode);
        }
        Grant g = target.tryResolve(key, address, n, Access.REMOTE_WRITE);
        if (mode == Records.CROSS_MEMORY) {
            allowCopy(id, g, address);
        } else if (n == 0) {
            if (g != null) {
                target.release(g);
            }
            outbox.answer(g != null ? Records.OK : Records.REFUSED, id);
        } else {
            // The data follows chunk by chunk; a refused put's data is read and dropped (ShmInbox.onChunk).
            StagedTransfer.Incoming in = new StagedTransfer.Incoming().set(StagedTransfer.PUT, n);
            in.id = id;
            in.grant = g;
            in.address = address;
            inbox.expect(in);
        }
    }

    private void serveGet(long id, MemorySegment d, long at, int length) {
        Records.requireLength(length, Records.RMA_REQUEST_BYTES, "get request");
        long key = Records.key(d, at);
        long address = Records.address(d, at);
        long n = Records.third(d, at);
        long mode = Records.fourth(d, at);
        if (n < 0 || n > maxRmaSize || (mode != Records.COPY && mode != Records.CROSS_MEMORY)) {
            throw new ShmProtocolException("get of " + n + " bytes, mode " + mode);
        }
        Grant g = target.tryResolve(key, address, n, Access.REMOTE_READ);
        if (g == null) {
            outbox.answer(Records.REFUSED, id);
        } else if (mode == Records.CROSS_MEMORY) {
            allowCopy(id, g, address);
        } else {
            // In the answer up to the threshold, else staged; the grant stays pinned until the bytes are out.
            OwedAnswer a = outbox.newAnswer(n <= threshold ? Records.DATA : Records.STAGED, id);
            a.grant = g;
            a.address = address;
            a.length = n;
            outbox.queueAnswer(a);
        }
    }

    /**
     * The initiator copies itself: tell it where, keep the grant pinned until it says it is done. The answer names a
     * virtual address of this process (what {@code process_vm_writev} needs), so only a side that offers copies
     * answers at all: elsewhere an honest peer never asks (it found no canary), and one that asks learns nothing.
     */
    private void allowCopy(long id, Grant g, long address) {
        if (g == null || !offersCrossMemory) {
            if (g != null) {
                target.release(g);
            }
            outbox.answer(Records.REFUSED, id);
            return;
        }
        copyGrants.put(id, g);
        OwedAnswer a = outbox.newAnswer(Records.GO, id);
        a.value = g.window().address() + g.offsetOf(address);
        outbox.queueAnswer(a);
    }

    private void serveAtomic(long id, MemorySegment d, long at, int length) {
        Records.requireLength(length, Records.ATOMIC_REQUEST_BYTES, "atomic request");
        long key = Records.key(d, at);
        long address = Records.address(d, at);
        long operand = Records.third(d, at);
        long compare = Records.fourth(d, at);
        int code = d.get(ValueLayout.JAVA_INT, at + 32);
        int width = d.get(ValueLayout.JAVA_INT, at + 36);
        AtomicOp op = SoftwareTarget.atomicOp(code);
        if (op == null || !SoftwareTarget.atomicWidth(width)) {
            throw new ShmProtocolException("atomic " + code + " of width " + width);
        }
        long previous;
        try {
            previous = target.atomic(op, width, key, address, operand, compare);
        } catch (RemoteAccessException refused) {
            outbox.answer(Records.REFUSED, id);
            return;
        }
        OwedAnswer a = outbox.newAnswer(Records.VALUE, id);
        a.value = previous;
        outbox.queueAnswer(a);
    }

    private void serveMap(long id, MemorySegment d, long at, int length) {
        Records.requireLength(length, Records.MAP_REQUEST_BYTES, "map request");
        long key = Records.key(d, at);
        long address = Records.address(d, at);
        long n = Records.third(d, at);
        Grant g = n < 0 ? null : target.tryResolve(key, address, n, Access.REMOTE_READ);
        SharedAllocation a = null;
        if (g != null && exported.size() < ShmWire.MAX_MAPPINGS) {
            a = regions.mappable(g.window().address(), g.length(), g.rights());
        }
        if (a == null) {
            if (g != null) {
                target.release(g);
            }
            outbox.answer(Records.REFUSED, id);
            return;
        }
        // The grant stays pinned while the peer maps it: its region is not freed under the peer's mapping.
        long mapId = nextMapId++;
        exported.put(mapId, g);
        exportedKeys.put(mapId, key);
        regions.exported(key, wire);
        OwedAnswer m = outbox.newAnswer(Records.MAPPED, id);
        m.value = mapId;
        m.fileOffset = a.fileOffset(g.window().address());
        m.length = g.length();
        m.grant = g;
        m.fd = a.fd;
        m.rights = MappedWindow.rightsOf(g.rights());
        outbox.queueAnswer(m);
        if (!g.isOpen()) {
            grantRevoked(key); // revoked while we answered: the unmap notice follows the answer
        }
    }

    /** The peer is done copying for request {@code id}: the pin goes. Strict: a done nobody allowed breaks. */
    void onDone(long id, boolean strict) {
        Grant g = copyGrants.remove(id);
        if (g != null) {
            target.release(g);
        } else if (strict) {
            throw new ShmProtocolException("done for request " + id + ", which was not allowed a copy");
        }
    }

    /** The peer unmapped a window (or the connection is over): its pin goes. */
    void unexport(long mapId) {
        Grant g = exported.remove(mapId);
        Long key = exportedKeys.remove(mapId);
        if (g == null) {
            return; // the peer confirms a mapping it could not make, or one already released
        }
        target.release(g);
        if (!exportedKeys.containsValue(key)) {
            regions.unexported(key, wire);
        }
    }

    /** A grant a peer of this connection mapped was revoked (loop thread): the peer is told to unmap it. */
    void grantRevoked(long key) {
        for (Map.Entry<Long, Long> e : exportedKeys.entrySet()) {
            if (e.getValue() == key) {
                // In order with the answers: a notice must not overtake the answer that handed the mapping out.
                OwedAnswer a = outbox.newAnswer(Records.UNMAP, 0);
                a.value = e.getKey();
                outbox.queueAnswer(a);
            }
        }
    }

    /** The connection is over: every pin the peer held (mappings, copies) goes. */
    void releaseAll() {
        for (Long mapId : List.copyOf(exported.keySet())) {
            unexport(mapId);
        }
        for (Grant g : copyGrants.values()) {
            target.release(g);
        }
        copyGrants.clear();
    }
}
