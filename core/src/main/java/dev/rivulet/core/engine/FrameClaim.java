package dev.rivulet.core.engine;

import dev.rivulet.core.MessageClaim;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

/**
 * The one {@link MessageClaim} a claimed send hands its encoder, pointed at each message's place in turn and closed
 * between messages. Every write is checked against the claim's capacity before it touches the frame, so an encoder
 * cannot reach the record header in front of its message or the message after it. Progress thread only; allocates
 * nothing.
 */
final class FrameClaim implements MessageClaim {

    private MemorySegment frame = MemorySegment.NULL;
    private long base;
    /** The claim's capacity while open; 0 once closed, so every later write fails. */
    private int limit;
    private final int capacity;

    FrameClaim(int capacity) {
        this.capacity = capacity;
    }

    /** Opens the claim on {@code capacity()} bytes of {@code frame} from {@code offset}. */
    void open(MemorySegment frame, long offset) {
        this.frame = frame;
        this.base = offset;
        this.limit = capacity;
    }

    void close() {
        limit = 0;
        frame = MemorySegment.NULL;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    private long at(int index, int width) {
        return base + Objects.checkFromIndexSize(index, width, limit);
    }

    @Override
    public MessageClaim putByte(int index, byte value) {
        frame.set(ValueLayout.JAVA_BYTE, at(index, Byte.BYTES), value);
        return this;
    }

    @Override
    public MessageClaim putShort(int index, short value) {
        frame.set(ValueLayout.JAVA_SHORT_UNALIGNED, at(index, Short.BYTES), value);
        return this;
    }

    @Override
    public MessageClaim putInt(int index, int value) {
        frame.set(ValueLayout.JAVA_INT_UNALIGNED, at(index, Integer.BYTES), value);
        return this;
    }

    @Override
    public MessageClaim putLong(int index, long value) {
        frame.set(ValueLayout.JAVA_LONG_UNALIGNED, at(index, Long.BYTES), value);
        return this;
    }

    @Override
    public MessageClaim putDouble(int index, double value) {
        frame.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, at(index, Double.BYTES), value);
        return this;
    }

    @Override
    public MessageClaim putBytes(int index, byte[] src, int srcIndex, int length) {
        Objects.checkFromIndexSize(srcIndex, length, src.length);
        MemorySegment.copy(src, srcIndex, frame, ValueLayout.JAVA_BYTE, at(index, length), length);
        return this;
    }

    @Override
    public MessageClaim putBytes(int index, MemorySegment src) {
        long n = src.byteSize();
        if (n > Integer.MAX_VALUE) {
            throw new IndexOutOfBoundsException("a segment of " + n + " bytes does not fit a claim of " + limit);
        }
        MemorySegment.copy(src, 0, frame, at(index, (int) n), n);
        return this;
    }

    @Override
    public MemorySegment segment() {
        if (frame == MemorySegment.NULL) {
            throw new IllegalStateException("a claim is valid only while its encoder runs");
        }
        return frame.asSlice(base, limit);
    }
}
