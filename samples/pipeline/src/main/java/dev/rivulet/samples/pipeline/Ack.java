package dev.rivulet.samples.pipeline;

import java.nio.ByteBuffer;

/** The receiver's acknowledgement of one batch: its id and how many frames it aggregated from it. */
public record Ack(long batchId, int frames) {

    /** Bytes of an encoded acknowledgement. */
    public static final int WIRE_SIZE = Long.BYTES + Integer.BYTES;

    public byte[] encode() {
        return ByteBuffer.allocate(WIRE_SIZE).putLong(batchId).putInt(frames).array();
    }

    public static Ack decode(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        return new Ack(b.getLong(), b.getInt());
    }
}
