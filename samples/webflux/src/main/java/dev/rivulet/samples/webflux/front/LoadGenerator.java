package dev.rivulet.samples.webflux.front;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;

/**
 * Writes a block, reads it back and checks it, over and over, through the same {@link BlockService} the HTTP
 * endpoints use: the traffic behind the live page. Off unless {@code blocks.load.enabled}.
 */
public final class LoadGenerator implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(LoadGenerator.class);

    private final BlockService blocks;
    private final int blockSize;
    private final Duration interval;
    private final AtomicLong rounds = new AtomicLong();
    private final AtomicLong mismatches = new AtomicLong();
    private volatile Disposable running;

    public LoadGenerator(BlockService blocks, int blockSize, Duration interval) {
        this.blocks = blocks;
        this.blockSize = blockSize;
        this.interval = interval;
    }

    @Override
    public void start() {
        running = Flux.interval(interval)
                .onBackpressureDrop()
                .concatMap(i -> round(i % 16).onErrorResume(e -> Mono.empty()), 1)
                .subscribe();
    }

    private Mono<Void> round(long slot) {
        byte[] data = new byte[blockSize];
        ThreadLocalRandom.current().nextBytes(data);
        String id = "load-" + slot;
        Flux<DataBuffer> body = Flux.range(0, (blockSize + 65535) / 65536).map(i -> {
            int off = i * 65536;
            return DefaultDataBufferFactory.sharedInstance.wrap(java.nio.ByteBuffer.wrap(data, off, Math.min(65536, blockSize - off)));
        });
        return blocks.put(id, blockSize, body)
                .then(blocks.get(id))
                .flatMap(read -> DataBufferUtils.join(read.body()))
                .doOnNext(joined -> {
                    CRC32 got = new CRC32();
                    try (DataBuffer.ByteBufferIterator it = joined.readableByteBuffers()) {
                        it.forEachRemaining(got::update);
                    } finally {
                        DataBufferUtils.release(joined);
                    }
                    CRC32 want = new CRC32();
                    want.update(data);
                    if (got.getValue() != want.getValue()) {
                        mismatches.incrementAndGet();
                        log.warn("block {} read back different bytes", id);
                    }
                    rounds.incrementAndGet();
                })
                .then();
    }

    public long rounds() {
        return rounds.get();
    }

    public long mismatches() {
        return mismatches.get();
    }

    @Override
    public void stop() {
        Disposable d = running;
        if (d != null) {
            d.dispose();
        }
        running = null;
    }

    @Override
    public boolean isRunning() {
        return running != null;
    }

    /** Starts once the storage client has, stops before it. */
    @Override
    public int getPhase() {
        return StorageClient.PHASE + 1;
    }
}
