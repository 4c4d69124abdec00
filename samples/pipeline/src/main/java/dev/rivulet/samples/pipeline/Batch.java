package dev.rivulet.samples.pipeline;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** A window of frames sent as one message; {@code id} counts batches from 0 in the order they are cut. */
public record Batch(long id, List<Frame> frames) {

    /** The encoded size of a batch of {@code frames} frames. */
    public static int wireSize(int frames) {
        return Long.BYTES + Integer.BYTES + frames * Frame.WIRE_SIZE;
    }

    public byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(wireSize(frames.size()));
        b.putLong(id).putInt(frames.size());
        frames.forEach(f -> f.writeTo(b));
        return b.array();
    }

    public static Batch decode(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        long id = b.getLong();
        int n = b.getInt();
        if (n < 0 || n > b.remaining() / Frame.WIRE_SIZE) {
            throw new IllegalArgumentException("batch " + id + " claims " + n + " frames in " + bytes.length
                    + " bytes");
        }
        List<Frame> frames = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            frames.add(Frame.readFrom(b));
        }
        return new Batch(id, frames);
    }
}
