package dev.rivulet.samples.webflux.front;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.spring.buffer.NettyDataBuffers;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import org.jspecify.annotations.Nullable;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpStatus;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Blocks as the HTTP front sees them: a PUT streams the body into the storage node's memory with {@code put}, a GET
 * streams it back with {@code get} into pooled registered buffers that go to the response as {@code DataBuffer}s.
 * The storage node only hands out windows (grants, each held by an open request on the storage connection) and
 * bookkeeping; the bytes move one-sided. Each operation is a
 * Micrometer observation, child of the HTTP request's, so a trace spans the HTTP call and the transport operations.
 */
public final class BlockService {

    private final StorageClient storage;
    private final int chunkSize;
    private final int chunksInFlight;
    private final long maxBlockSize;
    private final ObservationRegistry observations;
    private final AtomicLong blocks = new AtomicLong();
    private final Counter stored;
    private final Counter read;
    private final Counter bytesIn;
    private final Counter bytesOut;

    /** A block being read: its length and its bytes. */
    public record BlockRead(long length, Flux<DataBuffer> body) {
    }

    public BlockService(StorageClient storage, int chunkSize, int chunksInFlight, long maxBlockSize,
                        ObservationRegistry observations, MeterRegistry meters) {
        this.storage = storage;
        this.chunkSize = chunkSize;
        this.chunksInFlight = chunksInFlight;
        this.maxBlockSize = maxBlockSize;
        this.observations = observations;
        Gauge.builder("rivulet.webflux.blocks", blocks, AtomicLong::get)
                .description("Blocks stored through this front: PUTs of new ids minus DELETEs").register(meters);
        this.stored = Counter.builder("rivulet.webflux.blocks.stored")
                .description("Blocks written by PUT, new ones and replacements").register(meters);
        this.read = Counter.builder("rivulet.webflux.blocks.read").description("Blocks read by GET")
                .register(meters);
        this.bytesIn = Counter.builder("rivulet.webflux.bytes.stored").baseUnit("bytes").register(meters);
        this.bytesOut = Counter.builder("rivulet.webflux.bytes.read").baseUnit("bytes").register(meters);
    }

    public long maxBlockSize() {
        return maxBlockSize;
    }

    /**
     * Stores {@code body} ({@code length} bytes, as the request said) as block {@code id}; answers whether the block
     * is new. Refuses a length over the limit before anything is allocated; a body that is not {@code length} bytes
     * long stores nothing.
     */
    public Mono<Boolean> put(String id, long length, Flux<DataBuffer> body) {
        if (length > maxBlockSize) {
            // Refused on the header alone: the body is never read (the server discards it), nothing is allocated.
            return Mono.error(new BlockException(HttpStatus.CONTENT_TOO_LARGE, "a block holds at most " + maxBlockSize
                    + " bytes, not " + length));
        }
        return observe("rivulet.block.put", id, storage.write(id, length, window -> write(window, body))
                .doOnNext(created -> {
                    stored.increment();
                    bytesIn.increment(length);
                    if (created) {
                        blocks.incrementAndGet();
                    }
                }));
    }

    /**
     * Puts {@code body} into the granted window, {@code chunksInFlight} chunks at a time, and flushes: when this
     * completes the bytes are in the storage node's memory, ready to be committed.
     */
    private Mono<Void> write(StorageClient.Window window, Flux<DataBuffer> body) {
        Endpoint ep = window.endpoint();
        RemoteMemory target = window.remote();
        long length = window.length();
        Chunker chunker = new Chunker(ep.memory(), chunkSize);
        return body.concatMapIterable(chunker::add)
                .concatWith(Flux.defer(() -> Flux.fromIterable(chunker.finish())))
                .flatMap(c -> {
                    if (c.offset() + c.length() > length) {
                        c.release();
                        return Mono.error(new BlockException(HttpStatus.BAD_REQUEST, "the body is longer than its "
                                + "Content-Length of " + length + " bytes"));
                    }
                    return ep.put(c.slice(), target.slice(c.offset(), c.length())).doFinally(s -> c.release());
                }, chunksInFlight)
                .doOnDiscard(Chunker.Chunk.class, Chunker.Chunk::release)
                .then(Mono.defer(() -> chunker.total() == length ? ep.flush()
                        : Mono.error(new BlockException(HttpStatus.BAD_REQUEST, "the body had " + chunker.total()
                                + " bytes, its Content-Length said " + length))))
                .doFinally(s -> chunker.abandon());
    }

    /** Block {@code id}'s length and bytes; 404 when there is none. */
    public Mono<BlockRead> get(String id) {
        return observe("rivulet.block.get", id, storage.read(id)
                .map(access -> new BlockRead(access.window().length(), read(access))));
    }

    /**
     * The block's bytes as {@code DataBuffer}s over pooled registered buffers, {@code chunksInFlight} gets ahead of
     * the response (double-buffered by default); the read access ends when the body does, however it ends, and the
     * gets still in flight then have ended too. The body fails as soon as the storage node lets go of the access (it
     * or its connection gone) instead of waiting on a window no one serves any more.
     */
    private Flux<DataBuffer> read(StorageClient.Read access) {
        RemoteMemory source = access.window().remote();
        long length = access.window().length();
        int chunks = (int) ((length + chunkSize - 1) / chunkSize);
        // A get that fails comes out of flatMapSequential as a value, and the body fails after it, in order, so that
        // the chunks got before it still go out first. The chunks themselves wait in UnsentChunks, not in the
        // pipeline: flatMapSequential and Mono.create may lose a value to a cancel without discarding it.
        return Flux.defer(() -> {
            UnsentChunks unsent = new UnsentChunks();
            return Flux.range(0, chunks)
                    .flatMapSequential(i -> {
                        long off = (long) i * chunkSize;
                        int n = (int) Math.min(chunkSize, length - off);
                        return getInto(access, source.slice(off, n), n, i, unsent);
                    }, chunksInFlight, 1)
                    .<DataBuffer>handle((fetched, sink) -> {
                        if (fetched.failure() != null) {
                            sink.error(fetched.failure());
                            return;
                        }
                        DataBuffer chunk = unsent.take(fetched.index());
                        if (chunk != null) { // null: the body ended meanwhile and released it
                            sink.next(chunk);
                        }
                    })
                    .doOnComplete(() -> {
                        read.increment();
                        bytesOut.increment(length);
                    })
                    .doOnDiscard(DataBuffer.class, DataBufferUtils::release)
                    .doFinally(s -> {
                        unsent.close();
                        access.end();
                    });
        });
    }

    /** What one get gave the body: chunk {@code index}, held in the body's {@link UnsentChunks}, or why there is none. */
    private record Fetched(int index, @Nullable Throwable failure) {
    }

    /**
     * One get of {@code from}, a part of {@code access}'s window, into a pooled buffer, put in {@code unsent} as chunk
     * {@code index}, or the get's failure. A get once posted is never cancelled: the transport may be writing into
     * the buffer until it completes, and the grant must outlive it, so a response that no longer wants it (its client
     * gone) lets it run to its end; the buffer then goes to {@code unsent}, which the ended body has closed, and which
     * gives it back. Only losing its race with the access being {@code lost} (the storage node gone, nothing will
     * write any more) ends it early.
     */
    private static Mono<Fetched> getInto(StorageClient.Read access, RemoteMemory from, int n, int index,
                                         UnsentChunks unsent) {
        Endpoint ep = access.window().endpoint();
        return Mono.create(sink -> {
            Buffer b = ep.memory().allocate(n);
            access.share();
            Mono<Void> get = ep.get(from, b.region().slice(b.regionOffset(), n)).or(access.lost())
                    .doFinally(s -> access.end());
            // A value given to a sink that was cancelled meanwhile is lost: it is the index alone, never the buffer.
            get.contextWrite(sink.contextView()).subscribe(null, e -> {
                b.release();
                sink.success(new Fetched(index, e));
            }, () -> {
                unsent.put(index, NettyDataBuffers.wrap(b));
                sink.success(new Fetched(index, null));
            });
        });
    }

    public Mono<Void> delete(String id) {
        return storage.delete(id).doOnSuccess(done -> blocks.decrementAndGet());
    }

    /**
     * {@code work} as an observation named {@code name}, child of the one the HTTP request carries in its Reactor
     * {@code Context} (put there by Spring WebFlux), and parent of what runs inside it.
     */
    private <T> Mono<T> observe(String name, String id, Mono<T> work) {
        return Mono.deferContextual(ctx -> {
            Observation parent = ctx.getOrDefault(ObservationThreadLocalAccessor.KEY, null);
            Observation o = Observation.createNotStarted(name, observations).parentObservation(parent)
                    .highCardinalityKeyValue("block", id).start();
            return work.doOnError(o::error).doFinally(s -> o.stop())
                    .contextWrite(c -> c.put(ObservationThreadLocalAccessor.KEY, o));
        });
    }
}
