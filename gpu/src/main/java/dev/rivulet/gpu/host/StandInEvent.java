package dev.rivulet.gpu.host;

import dev.rivulet.gpu.CopyDirection;
import dev.rivulet.gpu.DeviceMemoryException;
import dev.rivulet.gpu.spi.AbstractCopyEvent;

import java.lang.foreign.MemorySegment;

/**
 * A stand-in event, which also carries the copy it was recorded after: the stream's queue holds events, so queuing
 * a copy allocates nothing. The copy thread publishes the outcome through the volatile state; the progress loop
 * reads it.
 */
final class StandInEvent extends AbstractCopyEvent {

    static final int IDLE = 0;
    static final int QUEUED = 1;
    static final int DONE = 2;
    static final int FAILED = 3;

    volatile int state = IDLE;
    // The copy: written by the queuing thread before the event is queued, read by the copy thread after.
    CopyDirection direction;
    MemorySegment device;
    long deviceOffset;
    MemorySegment host;
    long bytes;
    // Set for a device-to-device copy instead of host: the peer side, and whether the copy goes to it.
    MemorySegment peer;
    long peerOffset;
    boolean toPeer;
    DeviceMemoryException error;

    StandInEvent(StandInStream stream) {
        super(stream);
    }

    @Override
    public boolean isComplete() {
        int s = state;
        if (s == QUEUED) {
            return false;
        }
        if (s == FAILED) {
            DeviceMemoryException e = error;
            error = null;
            state = IDLE;
            throw e;
        }
        return true;
    }
}
