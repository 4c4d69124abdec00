package dev.rivulet.samples.bench.interaction;

import reactor.core.publisher.Flux;

import java.lang.foreign.MemorySegment;
import java.util.function.IntFunction;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * The data of a request-stream, how many payloads to answer with (8 bytes, little-endian) and their size (4 bytes),
 * and the answer both implementations' responders give it; and the payload sizes both sides prepare up front.
 */
final class StreamRequest {

    static final int LENGTH = 12;

    /** Payload sizes both sides prepare up front: the request-response sizes and the stream's. */
    static final int[] SIZES = {64, 4096, 65536};

    private StreamRequest() {
    }

    static byte[] encode(long count, int size) {
        byte[] b = new byte[LENGTH];
        MemorySegment s = MemorySegment.ofArray(b);
        s.set(JAVA_LONG_UNALIGNED, 0, count);
        s.set(JAVA_INT_UNALIGNED, 8, size);
        return b;
    }

    static long count(MemorySegment data) {
        return data.get(JAVA_LONG_UNALIGNED, 0);
    }

    static int size(MemorySegment data) {
        return data.get(JAVA_INT_UNALIGNED, 8);
    }

    /** The index of {@code size} in {@link #SIZES}. */
    static int sizeIndex(int size) {
        for (int i = 0; i < SIZES.length; i++) {
            if (SIZES[i] == size) {
                return i;
            }
        }
        throw new IllegalArgumentException("no prepared payload of " + size + " bytes");
    }

    /** The answer to a request-stream: {@code count} payloads made by {@code payload(size)}, then the end. */
    static <P> Flux<P> answer(long count, int size, IntFunction<P> payload) {
        return Flux.generate(() -> new long[]{count}, (left, sink) -> {
            if (left[0]-- > 0) {
                sink.next(payload.apply(size));
            } else {
                sink.complete();
            }
            return left;
        });
    }
}
