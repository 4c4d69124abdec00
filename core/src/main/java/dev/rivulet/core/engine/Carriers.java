package dev.rivulet.core.engine;

import dev.rivulet.core.credit.BatchFraming;
import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;

import java.util.ArrayDeque;

/**
 * The ops that carry coalesced small messages ({@link ControlWord#BATCH}) for one endpoint: sends already waiting at
 * the head of its pending FIFO, packed into one registered buffer and posted as one frame. Only what is already
 * queued is packed, so a lone message is never held back for company. Carriers are recycled, so steady coalescing
 * allocates no op. Progress thread only.
 */
final class Carriers {

    /** Largest message worth coalescing: beyond this a copy costs more than the send it saves. */
    static final int COALESCE_LIMIT = 1024;
    /** Messages one frame carries at most. */
    private static final int MAX_BATCH = 256;

    private final EndpointEngine engine;
    private final ArrayDeque<Op> free = new ArrayDeque<>();

    Carriers(EndpointEngine engine) {
        this.engine = engine;
    }

    /**
     * A carrier of the small sends at the head of {@code pending}, at most {@code credits} of them and
     * {@code maxBytes} in all, packed into a pooled buffer of {@code memory}; null when fewer than two qualify, or
     * when the pool has no buffer right now (the sends then simply go one by one: no waiting for memory here). The
     * sends stay in {@code pending}; the carrier names them as its members.
     */
    Op pack(OpFifo pending, long credits, int maxBytes, MemoryDomain memory) {
        int n = 0;
        long bytes = 0;
        for (int i = 0, queued = pending.size(); i < queued; i++) {
            Op m = pending.get(i);
            if (m.kind != OpKind.SEND || m.claims != null || m.isCancelled() || m.body() != null
                    || m.buffer.length() > COALESCE_LIMIT
                    || n == MAX_BATCH || n == credits
                    || bytes + BatchFraming.recordSize(m.buffer.length()) > maxBytes) {
                break;
            }
            bytes += BatchFraming.recordSize(m.buffer.length());
            n++;
        }
        if (n < 2) {
            return null;
        }
        Buffer frame = memory.buffers().tryAllocate((int) bytes);
        if (frame == null) {
            return null;
        }
        Op carrier = free.pollFirst();
        if (carrier == null) {
            carrier = new Op(engine);
            carrier.members = new Op[MAX_BATCH];
        }
        long off = 0;
        for (int i = 0; i < n; i++) {
            Op m = pending.get(i);
            off = BatchFraming.pack(frame.capacitySegment(), off, m.buffer.capacitySegment(), m.buffer.length());
            carrier.members[i] = m;
        }
        carrier.kind = OpKind.SEND;
        carrier.buffer = frame;
        carrier.memberCount = n;
        carrier.batchRecords = n;
        return carrier;
    }

    /** Back to the pool: its members forgotten, its frame buffer released. */
    void recycle(Op carrier) {
        for (int i = 0; i < carrier.memberCount; i++) {
            carrier.members[i] = null;
        }
        carrier.memberCount = 0;
        carrier.releaseResources();
        carrier.recycle();
        free.addFirst(carrier);
    }
}
