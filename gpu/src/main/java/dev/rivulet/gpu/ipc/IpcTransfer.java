package dev.rivulet.gpu.ipc;

import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.gpu.CopyEvent;
import dev.rivulet.gpu.DeviceMemoryException;
import dev.rivulet.gpu.DeviceSlice;
import dev.rivulet.gpu.PeerMapping;
import dev.rivulet.gpu.metrics.GpuMetrics.TransferOp;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.MonoSink;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * One put or get into a {@link DeviceWindow}, step by step: count it in the exporter's control word (refused once
 * revoked), open the mapping on first use, queue the device-to-device copy, let the progress loop see its event. On
 * a window already mapped the copy is queued at once and the count travels meanwhile: the transfer ends with its
 * copy, and a count that finds the window revoked makes later transfers fail (the copy landed before the exporter's
 * revocation could complete: that waits for this mapping to close, which waits for the count). Every step runs to its end once started, cancelled or not: a count added is always taken back
 * (with the window's next count, {@link IpcPath}), a queued copy always seen complete, before the local buffer's pin
 * and the window are released.
 */
final class IpcTransfer {

    private final IpcPath path;
    private final TransferOp op;
    private final DeviceSlice local;
    private final DeviceWindow window;
    private final ImportedWindow imported;
    private final boolean first;
    private final long owedTaken;
    private final MonoSink<Void> sink;
    private final AtomicInteger waiting = new AtomicInteger();
    private volatile boolean cancelled;
    private volatile boolean counted;
    private volatile @Nullable CopyEvent event;

    /**
     * @param first     the transfer that maps the window: it also counts the mapping
     * @param owedTaken operations of earlier transfers still counted in the word, taken back with this count
     */
    IpcTransfer(IpcPath path, TransferOp op, DeviceSlice local, DeviceWindow window, ImportedWindow imported,
                boolean first, long owedTaken, MonoSink<Void> sink) {
        this.path = path;
        this.op = op;
        this.local = local;
        this.window = window;
        this.imported = imported;
        this.first = first;
        this.owedTaken = owedTaken;
        this.sink = sink;
        sink.onCancel(() -> cancelled = true);
    }

    TransferOp op() {
        return op;
    }

    DeviceSlice local() {
        return local;
    }

    boolean cancelled() {
        return cancelled;
    }

    private long delta() {
        return ControlBlock.OPERATION * (1 - owedTaken) + (first ? ControlBlock.MAPPED : 0);
    }

    void start() {
        PeerMapping mapped = first ? null : imported.mapped();
        CopyEvent e = mapped != null && imported.covers(window) ? path.takeEvent() : null;
        if (e == null) {
            // First use, or no event free: count first, then map and copy.
            path.endpoint().fetchAdd(imported.word, delta()).subscribe(this::entered, this::enterFailed);
            return;
        }
        event = e;
        waiting.set(2);
        try {
            path.queueCopy(op, local, mapped, window.offset(), e);
        } catch (RuntimeException x) {
            event = null;
            path.giveEvent(e);
            path.restoreOwed(imported, owedTaken);
            exit(x);
            return;
        }
        path.watch(this);
        path.endpoint().fetchAdd(imported.word, delta()).subscribe(previous -> {
            counted = true;
            if (ControlBlock.revoked(previous)) {
                path.windowRevoked(imported);
            }
            arrive();
        }, x -> {
            path.restoreOwed(imported, owedTaken);
            arrive();
        });
    }

    /** The copy or the count of a transfer on a mapped window ended: once both have, the window is released. */
    private void arrive() {
        if (waiting.decrementAndGet() == 0) {
            path.operationDone(imported, counted);
        }
    }

    private void enterFailed(Throwable e) {
        // Refused (a forged control block) or the connection is gone: nothing was counted.
        path.restoreOwed(imported, owedTaken);
        path.windowBroken(imported, first);
        exit(e);
    }

    private void entered(long previous) {
        counted = true;
        if (ControlBlock.revoked(previous)) {
            path.windowRevoked(imported);
            exit(new RemoteAccessException("device window was revoked"));
            return;
        }
        if (cancelled) {
            exit(null);
            return;
        }
        imported.mapping(path.endpoint(), path.memory(), path).subscribe(this::mapped, e -> {
            path.windowBroken(imported, false);
            exit(e);
        });
    }

    private void mapped(PeerMapping mapping) {
        if (!imported.covers(window)) {
            exit(new RemoteAccessException("device window reaches outside what was granted"));
            return;
        }
        if (cancelled) {
            exit(null);
            return;
        }
        CopyEvent e = path.takeEvent();
        if (e == null) {
            path.withNewEvent(() -> mapped(mapping), this::exit);
            return;
        }
        event = e;
        try {
            path.queueCopy(op, local, mapping, window.offset(), e);
        } catch (RuntimeException x) {
            event = null;
            path.giveEvent(e);
            exit(x);
            return;
        }
        path.watch(this);
    }

    /**
     * Called on the progress loop each cycle while the copy runs: whether it ended (then the transfer goes on to
     * end, or waits for its count if that still travels).
     */
    boolean pollCopy() {
        CopyEvent e = event;
        boolean done;
        Throwable failed = null;
        try {
            done = e == null || e.isComplete();
        } catch (DeviceMemoryException x) {
            done = true;
            failed = x;
        }
        if (done) {
            event = null;
            if (e != null) {
                path.giveEvent(e);
            }
            if (waiting.get() > 0) {
                end(failed);
                arrive();
            } else {
                exit(failed);
            }
        }
        return done;
    }

    /**
     * Ends the transfer (its local buffer free again, its subscriber told) and leaves its count, if it was made, to
     * be taken back with the window's next one: the subscriber waits for no round trip to uncount it.
     */
    private void exit(@Nullable Throwable outcome) {
        end(outcome);
        path.operationDone(imported, counted);
    }

    private void end(@Nullable Throwable outcome) {
        path.transferEnded(this, outcome);
        if (outcome != null) {
            sink.error(outcome);
        } else {
            sink.success();
        }
    }
}
