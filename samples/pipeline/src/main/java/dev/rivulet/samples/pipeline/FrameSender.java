package dev.rivulet.samples.pipeline;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.error.TransportException;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.retry.RetryBackoffSpec;
import reactor.util.retry.Retry;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The sending half of the pipeline: frames are transformed, cut into batches by count or time, sent over Rivulet
 * and each batch waits for the receiver's acknowledgement, with a bounded number of batches waiting at once.
 *
 * <pre>{@code
 * Mono<PipelineReport> run = new FrameSender(RivuletClient.create().remoteAddress(address), settings)
 *         .run(frames)
 *         .contextWrite(RunObserver.runId("run-42"));   // seen by the transport's OperationObserver
 * }</pre>
 *
 * Failures: a retryable {@link TransportException} (nobody listening yet, no resources for now) is retried with
 * exponential backoff; anything else, and a batch not acknowledged within {@link PipelineSettings#ackTimeout()},
 * ends the run with that error.
 */
public final class FrameSender {

    private final RivuletClient client;
    private final PipelineSettings settings;
    private final AtomicInteger connectRetries = new AtomicInteger();
    private final AtomicInteger outstanding = new AtomicInteger();
    private final AtomicInteger maxOutstanding = new AtomicInteger();

    public FrameSender(RivuletClient client, PipelineSettings settings) {
        this.client = client;
        this.settings = settings;
    }

    /**
     * Connects (retrying while the receiver is not up), streams {@code frames} to the end, and completes with what
     * was acknowledged once every batch was; the connection is closed gracefully whatever happens.
     */
    public Mono<PipelineReport> run(Flux<Frame> frames) {
        return Mono.usingWhen(connect(),
                link -> send(link, frames),
                link -> link.close(Duration.ofSeconds(5)));
    }

    /** Failed connection attempts that were retried so far. */
    public int connectRetries() {
        return connectRetries.get();
    }

    private Mono<Link> connect() {
        return Mono.deferContextual(context -> client.connect()
                        .map(endpoint -> new Link(endpoint, AckTracker.listen(endpoint, context))))
                .retryWhen(retryable().doBeforeRetry(signal -> connectRetries.incrementAndGet()));
    }

    private Mono<PipelineReport> send(Link link, Flux<Frame> frames) {
        return frames
                .map(Frame::calibrated)                                               // transform
                .bufferTimeout(settings.batchSize(), settings.maxBatchDelay(), true) // window by count or time
                .index(Batch::new)                                                    // number the batches
                .flatMapSequential(batch -> deliver(link, batch), settings.maxOutstanding())
                // batches sent together time out together, and flatMapSequential then reports their errors as one
                // composite: pass on the first, so callers see the TimeoutException itself
                .onErrorMap(Exceptions::isMultiple, e -> Exceptions.unwrapMultiple(e).getFirst())
                .reduce(PipelineReport.EMPTY, PipelineReport::plus)
                .map(report -> report.withMaxOutstanding(maxOutstanding.get()));
    }

    /**
     * Sends one batch and waits for its acknowledgement. {@code flatMapSequential} subscribes these in batch order,
     * so batches leave in order and at most {@code maxOutstanding} wait at once.
     */
    private Mono<Ack> deliver(Link link, Batch batch) {
        byte[] bytes = batch.encode();
        return Mono.defer(() -> {
                    Mono<Ack> ack = link.acks().expect(batch.id()); // before sending: the ack may be quick
                    return link.endpoint().send(bytes)              // copies per subscription, so retryable
                            .retryWhen(retryable())
                            .then(ack);
                })
                .timeout(settings.ackTimeout())
                // counted down before the result goes downstream, where flatMapSequential starts the next batch
                .doOnSubscribe(s -> maxOutstanding.accumulateAndGet(outstanding.incrementAndGet(), Math::max))
                .doOnTerminate(outstanding::decrementAndGet)
                .doOnCancel(outstanding::decrementAndGet);
    }

    /** Exponential backoff with jitter, for the failures Rivulet marks retryable and no others. */
    private RetryBackoffSpec retryable() {
        return Retry.backoff(settings.maxRetries(), settings.firstBackoff())
                .maxBackoff(settings.maxBackoff())
                .filter(e -> e instanceof TransportException t && t.isRetryable());
    }

    /** A connection and the acknowledgements arriving on it. */
    private record Link(Endpoint endpoint, AckTracker acks) {

        Mono<Void> close(Duration timeout) {
            acks.dispose();
            return endpoint.closeGracefully(timeout);
        }
    }
}
