package dev.rivulet.gpu.ipc;

import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.gpu.CopyEvent;
import dev.rivulet.gpu.DeviceMemoryException;
import dev.rivulet.gpu.DeviceSlice;
import dev.rivulet.gpu.PeerMapping;
import dev.rivulet.gpu.metrics.GpuMetrics.TransferOp;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.MonoSink;

/**
 * One put or get into a {@link DeviceWindow}, step by step: count it in the exporter's control word (refused once
 * revoked), open the mapping on first use, queue the device-to-device copy, let the progress loop see its event,
 * then uncount it. Every step runs to its end once started, cancelled or not: a count added is always taken back,
 * a queued copy always seen complete, before the local buffer's pin and the window are released.
 */
final class IpcTransfer {

    private final IpcPath path;
    private final TransferOp op;
    private final DeviceSlice local;
    private final DeviceWindow window;
    private final ImportedWindow imported;
    private final long delta;
    private final MonoSink<Void> sink;
    private volatile boolean cancelled;
    private @Nullable CopyEvent event;

    IpcTransfer(IpcPath path, TransferOp op, DeviceSlice local, DeviceWindow window, ImportedWindow imported,
                boolean first, MonoSink<Void> sink) {
        this.path = path;
        this.op = op;
        this.local = local;
        this.window = window;
        this.imported = imported;
        this.delta = ControlBlock.OPERATION + (first ? ControlBlock.MAPPED : 0);
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

    void start() {
        path.endpoint().fetchAdd(imported.word, delta).subscribe(this::entered, this::enterFailed);
        // fetchAdd emits the previous value, or fails; it never completes empty.
    }

    private void enterFailed(Throwable e) {
        // Refused (a forged control block) or the connection is gone: nothing was counted.
        path.windowBroken(imported, delta != ControlBlock.OPERATION);
        path.windowReleased(imported);
        end(e);
    }

    private void entered(long previous) {
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
     * uncount itself).
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
            exit(failed);
        }
        return done;
    }

    /**
     * Ends the transfer (its local buffer free again, its subscriber told), then takes its operation back out of the
     * control word: the subscriber does not wait for that round trip, the window's release does.
     */
    private void exit(@Nullable Throwable outcome) {
        end(outcome);
        path.endpoint().fetchAdd(imported.word, -ControlBlock.OPERATION)
                .subscribe(null, e -> path.windowReleased(imported), () -> path.windowReleased(imported));
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
