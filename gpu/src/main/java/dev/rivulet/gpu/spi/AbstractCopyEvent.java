package dev.rivulet.gpu.spi;

import dev.rivulet.gpu.CopyEvent;

/** A {@link CopyEvent} of an {@link AbstractCopyStream}, counted by its memory type until it is closed. */
public abstract class AbstractCopyEvent implements CopyEvent {

    final AbstractCopyStream<?> stream;
    private volatile boolean closed;

    protected AbstractCopyEvent(AbstractCopyStream<?> stream) {
        this.stream = stream;
    }

    /** Destroys the native event once it is closed (nothing by default). */
    protected void destroy() {
    }

    @Override
    public final synchronized void close() {
        if (!closed) {
            closed = true;
            stream.eventClosed();
            destroy();
        }
    }

    final boolean isClosed() {
        return closed;
    }
}
