package dev.rivulet.samples.pipeline;

import java.time.Duration;

/**
 * How the sender cuts and sends batches.
 *
 * @param batchSize      frames per batch at most
 * @param maxBatchDelay  a batch leaves after this long even if not full (a slow sensor still gets through)
 * @param maxOutstanding batches sent and not yet acknowledged, at most
 * @param ackTimeout     how long one batch may take from sending to its acknowledgement
 * @param maxRetries     retries of a retryable failure (connect, send) before giving up
 * @param firstBackoff   the first retry's delay; each next one doubles, with jitter, up to {@code maxBackoff}
 * @param maxBackoff     the longest delay between retries
 */
public record PipelineSettings(int batchSize, Duration maxBatchDelay, int maxOutstanding, Duration ackTimeout,
                               int maxRetries, Duration firstBackoff, Duration maxBackoff) {

    public static PipelineSettings defaults() {
        return new PipelineSettings(64, Duration.ofMillis(20), 8, Duration.ofSeconds(5), 8, Duration.ofMillis(50),
                Duration.ofSeconds(1));
    }

    public PipelineSettings withBatchSize(int n) {
        return new PipelineSettings(n, maxBatchDelay, maxOutstanding, ackTimeout, maxRetries, firstBackoff,
                maxBackoff);
    }

    public PipelineSettings withMaxOutstanding(int n) {
        return new PipelineSettings(batchSize, maxBatchDelay, n, ackTimeout, maxRetries, firstBackoff, maxBackoff);
    }

    public PipelineSettings withAckTimeout(Duration d) {
        return new PipelineSettings(batchSize, maxBatchDelay, maxOutstanding, d, maxRetries, firstBackoff,
                maxBackoff);
    }

    public PipelineSettings withMaxRetries(int n) {
        return new PipelineSettings(batchSize, maxBatchDelay, maxOutstanding, ackTimeout, n, firstBackoff,
                maxBackoff);
    }

    public PipelineSettings withBackoff(Duration first, Duration max) {
        return new PipelineSettings(batchSize, maxBatchDelay, maxOutstanding, ackTimeout, maxRetries, first, max);
    }
}
