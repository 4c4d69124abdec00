package dev.rivulet.samples.webflux.front;

import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.NettyDataBuffer;
import org.springframework.core.io.buffer.NettyDataBufferFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;
import reactor.test.util.RaceTestUtils;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every chunk held for a body is given back exactly once, whether the response takes it or the body ends first,
 * however the two race. Each buffer here carries one extra reference kept by the test, so a chunk released once reads
 * one, released twice zero.
 */
class UnsentChunksTest {

    private static final NettyDataBufferFactory BUFFERS = new NettyDataBufferFactory(UnpooledByteBufAllocator.DEFAULT);
    private static final int RACES = 2_000;

    @Test
    void aChunkGotBeforeTheOneAheadOfItIsReleasedWhenTheResponseIsCancelled() {
        // The shape of a GET body: gets in flight in order, chunk 1 done while chunk 0 is not; flatMapSequential keeps
        // chunk 1 in its reordering queue, and drops it there, undiscarded, when the response goes away.
        UnsentChunks unsent = new UnsentChunks();
        List<Sinks.One<Integer>> gets = List.of(Sinks.one(), Sinks.one());
        DataBuffer second = counted();
        Flux<DataBuffer> body = Flux.range(0, 2)
                .flatMapSequential(i -> gets.get(i).asMono(), 2, 1)
                .<DataBuffer>handle((i, sink) -> {
                    DataBuffer chunk = unsent.take(i);
                    if (chunk != null) {
                        sink.next(chunk);
                    }
                })
                .doFinally(s -> unsent.close());

        StepVerifier.create(body)
                .then(() -> {
                    unsent.put(1, second);
                    gets.get(1).tryEmitValue(1);
                })
                .thenCancel()
                .verify();

        assertThat(refCnt(second)).isOne();
        assertThat(unsent.size()).isZero();
    }

    @Test
    void aChunkArrivingAsTheBodyEndsIsReleasedOnce() {
        for (int r = 0; r < RACES; r++) {
            UnsentChunks unsent = new UnsentChunks();
            DataBuffer chunk = counted();
            RaceTestUtils.race(() -> unsent.put(0, chunk), unsent::close);
            assertThat(refCnt(chunk)).as("race %d", r).isOne();
        }
    }

    @Test
    void aChunkTakenAsTheBodyEndsIsReleasedOnceByOneOfThem() {
        for (int r = 0; r < RACES; r++) {
            UnsentChunks unsent = new UnsentChunks();
            DataBuffer chunk = counted();
            unsent.put(0, chunk);
            AtomicReference<DataBuffer> taken = new AtomicReference<>();
            RaceTestUtils.race(() -> taken.set(unsent.take(0)), unsent::close);
            if (taken.get() != null) {
                DataBufferUtils.release(taken.get()); // the response's release, once its bytes are sent
            }
            assertThat(refCnt(chunk)).as("race %d", r).isOne();
        }
    }

    @Test
    void chunksNotTakenAreAllReleasedWhenTheBodyEnds() {
        UnsentChunks unsent = new UnsentChunks();
        List<DataBuffer> chunks = IntStream.range(0, 4).mapToObj(i -> counted()).toList();
        IntStream.range(0, 4).forEach(i -> unsent.put(i, chunks.get(i)));
        DataBuffer first = unsent.take(0);

        unsent.close();

        assertThat(first).isSameAs(chunks.get(0));
        assertThat(refCnt(first)).isEqualTo(2);
        assertThat(chunks.subList(1, 4)).allSatisfy(c -> assertThat(refCnt(c)).isOne());
        assertThat(unsent.take(1)).isNull();
    }

    /** A buffer with the test's own reference on top of the one handed to {@link UnsentChunks}. */
    private static DataBuffer counted() {
        NettyDataBuffer b = BUFFERS.allocateBuffer(8);
        b.getNativeBuffer().retain();
        return b;
    }

    private static int refCnt(DataBuffer b) {
        return ((NettyDataBuffer) b).getNativeBuffer().refCnt();
    }
}
