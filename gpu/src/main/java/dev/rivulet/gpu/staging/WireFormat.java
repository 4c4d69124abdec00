package dev.rivulet.gpu.staging;

import dev.rivulet.core.memory.Buffer;
import dev.rivulet.gpu.DeviceProtocolException;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * How a device message travels as Rivulet messages: a 24-byte header (magic, version, total length, chunk size),
 * then the chunks in order, each one message of exactly the chunk size (the last one shorter). A sender that gives a
 * message up part way sends an empty message where the next chunk would be: a chunk is never empty, so an empty
 * message can only mean "abort".
 *
 * <pre>
 *   0  int   magic 'RVGM'
 *   4  short version (1)
 *   6  short kind    (1 = message)
 *   8  long  length  bytes of the whole message
 *  16  int   chunk   bytes per chunk
 *  20  int   reserved (0)
 * </pre>
 */
final class WireFormat {

    static final int HEADER_BYTES = 24;
    static final int MAGIC = 0x5256474D; // "RVGM"
    static final short VERSION = 1;
    static final short KIND_MESSAGE = 1;

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private WireFormat() {
    }

    /** Writes the header of a message of {@code length} bytes in chunks of {@code chunk} into {@code b}. */
    static void writeHeader(Buffer b, long length, int chunk) {
        b.length(HEADER_BYTES);
        MemorySegment s = b.segment();
        s.set(INT, 0, MAGIC);
        s.set(SHORT, 4, VERSION);
        s.set(SHORT, 6, KIND_MESSAGE);
        s.set(LONG, 8, length);
        s.set(INT, 16, chunk);
        s.set(INT, 20, 0);
    }

    /** The announced message length of a header. */
    static long length(Buffer b) {
        return b.segment().get(LONG, 8);
    }

    /** The announced chunk size of a header. */
    static int chunk(Buffer b) {
        return b.segment().get(INT, 16);
    }

    /**
     * Checks that {@code b} is a header this side understands, with a chunk size between {@code minChunk} and
     * {@code maxChunk}.
     *
     * @throws DeviceProtocolException when it is not
     */
    static void checkHeader(Buffer b, int minChunk, int maxChunk) {
        if (b.length() != HEADER_BYTES) {
            throw new DeviceProtocolException("expected a " + HEADER_BYTES + "-byte device message header, got a "
                    + b.length() + "-byte message");
        }
        MemorySegment s = b.segment();
        if (s.get(INT, 0) != MAGIC || s.get(SHORT, 6) != KIND_MESSAGE) {
            throw new DeviceProtocolException("not a device message header");
        }
        if (s.get(SHORT, 4) != VERSION) {
            throw new DeviceProtocolException("device message version " + s.get(SHORT, 4) + ", this side speaks "
                    + VERSION);
        }
        long length = s.get(LONG, 8);
        int chunk = s.get(INT, 16);
        if (length < 0 || chunk < minChunk || chunk > maxChunk) {
            throw new DeviceProtocolException("device message header announces " + length + " bytes in chunks of "
                    + chunk + " (chunks must be " + minChunk + ".." + maxChunk + ")");
        }
    }

    /** Number of chunks of a message. */
    static int chunks(long length, int chunk) {
        long n = (length + chunk - 1) / chunk;
        if (n > Integer.MAX_VALUE) {
            throw new DeviceProtocolException("device message of " + length + " bytes has too many chunks of "
                    + chunk);
        }
        return (int) n;
    }

    /** Length of chunk {@code k} of a message. */
    static int chunkLength(long length, int chunk, int k) {
        return (int) Math.min(chunk, length - (long) k * chunk);
    }
}
