package dev.rivulet.samples.webflux.storage;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.samples.webflux.protocol.Control.Granted;
import dev.rivulet.samples.webflux.protocol.Refusal;
import dev.rivulet.samples.webflux.protocol.Refusal.Reason;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One block's window granted to one connection for as long as the request that asked for it is open: a write's
 * reserved room until it is committed, or a read's block until the reader is done. Ending the request, however it
 * ends (answered, cancelled, the connection gone), ends the access: the grant is revoked and the room given back or
 * the read counted as done.
 */
final class BlockAccess {

    private final BlockStore store;
    private final BlockStore.Extent extent;
    private final Grant grant;
    private final long length;
    private final boolean write;
    private final AtomicBoolean over = new AtomicBoolean();

    private BlockAccess(BlockStore store, BlockStore.Extent extent, Grant grant, long length, boolean write) {
        this.store = store;
        this.extent = extent;
        this.grant = grant;
        this.length = length;
        this.write = write;
    }

    /** Room for a block of {@code size} bytes, writable by {@code ep}'s peer. */
    static BlockAccess write(BlockStore store, Endpoint ep, long size) {
        if (size < 0 || size > store.maxBlockSize()) {
            throw new Refusal(Reason.TOO_LARGE, "a block holds at most " + store.maxBlockSize() + " bytes, not "
                    + size);
        }
        BlockStore.Extent e = store.reserve(size);
        if (e == null) {
            throw new Refusal(Reason.FULL, "no room for " + size + " more bytes");
        }
        return new BlockAccess(store, e, ep.grant(store.window(e, size), Access.REMOTE_WRITE), size, true);
    }

    /** Block {@code id}, readable by {@code ep}'s peer. */
    static BlockAccess read(BlockStore store, Endpoint ep, String id) {
        BlockStore.Extent e = store.startReading(id);
        if (e == null) {
            throw new Refusal(Reason.NOT_FOUND, "no block " + id);
        }
        return new BlockAccess(store, e, ep.grant(store.window(e, e.length), Access.REMOTE_READ), e.length, false);
    }

    /** The answer that hands the window to the peer. */
    Granted granted() {
        return new Granted(length, grant.remote().toBytes());
    }

    /** The write is done: the room becomes block {@code id}, and the access ends. Returns whether it is new. */
    boolean commit(String id) {
        if (!write || !over.compareAndSet(false, true)) {
            throw new Refusal(Reason.BAD_REQUEST, "nothing to commit");
        }
        grant.close();
        return store.commit(id, extent, length);
    }

    /** Ends the access unless a commit did: room reserved goes back, a read is done. */
    void end() {
        if (!over.compareAndSet(false, true)) {
            return;
        }
        grant.close();
        if (write) {
            store.abandon(extent);
        } else {
            store.doneReading(extent);
        }
    }
}
