package dev.rivulet.gpu.staging;

import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.RegisteredSlice;
import dev.rivulet.gpu.CopyEvent;

import java.lang.foreign.MemorySegment;

/**
 * One staging buffer: a pooled message buffer of the transport's memory domain (registered once, pinned for the
 * device once), held by the pipeline for its whole life, with a copy event per direction. A chunk occupies it from
 * its first copy until the network (or the last copy) is done with it.
 *
 * <p>The pipeline keeps one reference to the buffer. A chunk sent as a message lends the send a second one, which
 * the endpoint drops when the provider no longer touches the memory: a count back at one means the slot is free.
 */
final class Slot {

    static final int FREE = 0;
    /** Device to staging copy queued. */
    static final int TO_HOST = 1;
    /** Sent as a message; free again when the send dropped its reference. */
    static final int EMITTED = 2;
    /** A put or get of this chunk is in flight. */
    static final int NETWORK = 3;
    /** Staging to device copy queued (after a get). */
    static final int TO_DEVICE = 4;

    final Buffer buffer;
    final MemorySegment host;
    final RegisteredSlice whole;
    final CopyEvent toHostEvent;
    final CopyEvent toDeviceEvent;

    /** Set by the outbound pipeline: what each put or get of this slot's chunks reports its end to. */
    OutboundPipeline.NetworkStep step;
    int state = FREE;
    OutboundPipeline.Transfer transfer;
    int chunk;
    int length;
    long copyStart;

    Slot(Buffer buffer, CopyEvent toHostEvent, CopyEvent toDeviceEvent) {
        this.buffer = buffer;
        this.host = buffer.capacitySegment();
        this.whole = buffer.region().slice(buffer.regionOffset(), buffer.capacity());
        this.toHostEvent = toHostEvent;
        this.toDeviceEvent = toDeviceEvent;
    }

    /** The first {@code length} bytes as a registered slice, for a put or get. */
    RegisteredSlice local() {
        return length == whole.length() ? whole : whole.region().slice(whole.offset(), length);
    }
}
