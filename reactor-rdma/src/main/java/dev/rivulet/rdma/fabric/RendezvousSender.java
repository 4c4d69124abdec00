package dev.rivulet.rdma.fabric;

import dev.rivulet.core.engine.Op;
import dev.rivulet.core.engine.Wire;
import dev.rivulet.core.engine.WireEvents;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.internal.MemoryAccess;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.AccessScope;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.rdma.fabric.sys.FidEp;
import dev.rivulet.rdma.wire.ConnectionFate;

import java.util.Set;

import static dev.rivulet.rdma.fabric.sys.FiConstants.FI_EAGAIN;

/**
 * The sending side of a rendezvous ({@link RendezvousRequest}): a message larger than the receiver's buffers is
 * exposed for remote read, exactly its bytes under a fresh key, and announced by a small request; the send completes
 * when the receiver's done word says it pulled the message, and the window closes then. Progress thread only.
 */
final class RendezvousSender {

    private static final MemoryAccess MEMORY = Internals.memory();

    private final FabricLink link;
    private final MemoryDomain memory;
    /** The connection the windows answer (the wire). */
    private final AccessScope scope;
    private final ConnectionFate fate;
    /** The temporary read-only registration of each message, by the slot its op waits in. */
    private final Grant[] windows;

    RendezvousSender(FabricLink link, MemoryDomain memory, AccessScope scope, ConnectionFate fate) {
        this.link = link;
        this.memory = memory;
        this.scope = scope;
        this.fate = fate;
        this.windows = new Grant[link.slots.capacity()];
    }

    /** Posts the request for {@code op}'s message, carrying the credits of {@code controlWord}. */
    int send(long controlWord, Op op) {
        ContextSlots slots = link.slots;
        if (slots.capacity() - slots.inUse() < 2) {
            return Wire.NO_RESOURCE;
        }
        Buffer b = op.buffer();
        Grant window = MEMORY.grantForTransfer(memory, b.region().slice(b.regionOffset(), b.length()),
                Set.of(Access.REMOTE_READ), scope);
        Buffer rts = memory.allocate(RendezvousRequest.BYTES);
        int wait = link.acquire(ContextSlots.RNDV_WAIT, op, b.length());
        int sendSlot = link.acquire(ContextSlots.RTS_SEND, rts, b.length());
        RendezvousRequest.write(rts.capacitySegment(), window.remote().address(), b.length(), window.remote().key(),
                wait);
        long rc = FidEp.senddata(link.ep, rts.capacitySegment(), RendezvousRequest.BYTES,
                MEMORY.descriptor(rts.region()), RendezvousRequest.requestWord(controlWord), link.peer,
                slots.context(sendSlot));
        if (rc != 0) {
            slots.release(sendSlot);
            slots.release(wait);
            rts.release();
            window.close();
            if (rc == -FI_EAGAIN) {
                return Wire.NO_RESOURCE;
            }
            throw link.error("fi_senddata(rendezvous)", rc);
        }
        windows[wait] = window;
        return Wire.POSTED;
    }

    /** The receiver read the message of the request with {@code token}: the send is complete, its window closes. */
    void done(WireEvents events, int token) {
        ContextSlots slots = link.slots;
        if (token < 0 || token >= slots.capacity() || slots.kind(token) != ContextSlots.RNDV_WAIT) {
            fate.broken(events, new CreditProtocolException("rendezvous done for unknown token " + token));
            return;
        }
        Op op = (Op) slots.owner(token);
        slots.release(token);
        closeWindow(token);
        events.completed(op, 0);
    }

    /** Closes the window of the op waiting in {@code slot}, if it has one (the wire closed under it). */
    void closeWindow(int slot) {
        if (windows[slot] != null) {
            windows[slot].close();
            windows[slot] = null;
        }
    }
}
