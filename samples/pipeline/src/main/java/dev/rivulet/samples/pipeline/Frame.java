package dev.rivulet.samples.pipeline;

import java.nio.ByteBuffer;

/**
 * One sensor reading: which sensor, its sequence number within that sensor's stream, when it was taken and the
 * value. Each sensor's frames form one ordered stream.
 */
public record Frame(int sensor, long seq, long timestampMicros, double value) {

    /** Bytes per frame on the wire. */
    static final int WIRE_SIZE = Integer.BYTES + Long.BYTES + Long.BYTES + Double.BYTES;

    /** The transformation step of the pipeline: raw ADC counts to degrees Celsius. */
    public Frame calibrated() {
        return new Frame(sensor, seq, timestampMicros, value * 0.0625 - 40.0);
    }

    void writeTo(ByteBuffer b) {
        b.putInt(sensor).putLong(seq).putLong(timestampMicros).putDouble(value);
    }

    static Frame readFrom(ByteBuffer b) {
        return new Frame(b.getInt(), b.getLong(), b.getLong(), b.getDouble());
    }
}
