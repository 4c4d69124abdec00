package dev.rivulet.core;

import java.lang.foreign.MemorySegment;

/**
 * The space one message was given in an outgoing frame, for a {@link MessageEncoder} to write into: the bytes land
 * where the transport sends them from, so a message is written once, with no buffer of its own (the shape of
 * Aeron's {@code tryClaim}).
 *
 * <p>Indexes are relative to the start of the message, from 0 to {@link #capacity()} (the {@code maxMessageSize}
 * the send was given); multi-byte values are written in native byte order, as {@code ValueLayout.JAVA_INT} and
 * friends read them. A write that does not fit inside the claim throws {@link IndexOutOfBoundsException} and
 * changes nothing, so it can never reach another message or the framing around it.
 *
 * <p>A claim is valid only while {@link MessageEncoder#encode} runs: the same object is handed to the next message,
 * and every write after {@code encode} returned fails.
 */
public interface MessageClaim {

    /** Bytes this message may take: the {@code maxMessageSize} its send was given. */
    int capacity();

    /** Writes one byte at {@code index}. */
    MessageClaim putByte(int index, byte value);

    /** Writes a {@code short} at {@code index}, in native byte order. */
    MessageClaim putShort(int index, short value);

    /** Writes an {@code int} at {@code index}, in native byte order. */
    MessageClaim putInt(int index, int value);

    /** Writes a {@code long} at {@code index}, in native byte order. */
    MessageClaim putLong(int index, long value);

    /** Writes a {@code double} at {@code index}, in native byte order. */
    MessageClaim putDouble(int index, double value);

    /** Copies {@code length} bytes of {@code src} from {@code srcIndex} to {@code index}. */
    MessageClaim putBytes(int index, byte[] src, int srcIndex, int length);

    /** Copies all of {@code src} to {@code index}. */
    default MessageClaim putBytes(int index, byte[] src) {
        return putBytes(index, src, 0, src.length);
    }

    /** Copies all bytes of {@code src} to {@code index}. */
    MessageClaim putBytes(int index, MemorySegment src);

    /**
     * The claimed space as a segment of {@link #capacity()} bytes, for code that writes through {@code MemorySegment}
     * (a codec, {@code MemorySegment.copy}). Bounds are checked by the segment itself. Valid only during
     * {@code encode}. Unlike the {@code put} methods this creates a segment object per call, which the JIT removes
     * only when it can prove the segment does not escape; the {@code put} methods never allocate.
     */
    MemorySegment segment();
}
