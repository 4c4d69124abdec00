package dev.rivulet.samples.pipeline;

import dev.rivulet.core.Endpoint;
import org.reactivestreams.Publisher;

import java.util.Map;
import java.util.TreeMap;

/**
 * The receiving half: a {@code RivuletServer} handler that aggregates each batch and acknowledges it on the same
 * endpoint. It also checks each sensor's stream: frames must come exactly once and in sequence order.
 *
 * <pre>{@code
 * FrameReceiver receiver = new FrameReceiver();
 * RivuletServer.create().bindAddress(address).handle(receiver::handle).bindNow();
 * }</pre>
 */
public final class FrameReceiver {

    /** Per sensor, the sequence number expected next. */
    private final Map<Integer, Long> nextSeq = new TreeMap<>();
    private long lastBatch = -1;
    private long frames;
    private long batches;
    private long duplicates;
    private long gaps;
    private double sum;

    /** Serves one connection: aggregates every batch it receives and sends back an {@link Ack} for each, in order. */
    public Publisher<Void> handle(Endpoint endpoint) {
        return endpoint.receive()
                .asByteArray() // copied out of the lent buffer: nothing to release
                .map(Batch::decode)
                .map(this::aggregate)
                .concatMap(summary -> endpoint.send(new Ack(summary.batchId(), summary.frames()).encode()))
                .then();
    }

    /** Aggregates one batch; synchronized because each connection delivers on its own polling thread. */
    synchronized BatchSummary aggregate(Batch batch) {
        if (batch.id() <= lastBatch) {
            return new BatchSummary(batch.id(), batch.frames().size(), 0, 0, 0, true);
        }
        lastBatch = batch.id();
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        double sum = 0;
        for (Frame f : batch.frames()) {
            long expected = nextSeq.getOrDefault(f.sensor(), 0L);
            if (f.seq() < expected) {
                duplicates++;
                continue;
            }
            if (f.seq() > expected) {
                gaps += f.seq() - expected;
            }
            nextSeq.put(f.sensor(), f.seq() + 1);
            frames++;
            this.sum += f.value();
            min = Math.min(min, f.value());
            max = Math.max(max, f.value());
            sum += f.value();
        }
        batches++;
        int n = batch.frames().size();
        return new BatchSummary(batch.id(), n, min, max, n == 0 ? 0 : sum / n, false);
    }

    /** What was aggregated so far. */
    public synchronized ReceiverStats stats() {
        return new ReceiverStats(frames, batches, duplicates, gaps, frames == 0 ? 0 : this.sum / frames,
                Map.copyOf(nextSeq));
    }

    /**
     * @param frames     frames aggregated (each once)
     * @param batches    batches aggregated
     * @param duplicates frames that came again, or out of order behind a later one of their sensor
     * @param gaps       frames skipped: a sensor's sequence jumped ahead
     * @param mean       the mean value over every frame aggregated
     * @param nextSeq    per sensor, how many of its frames arrived in order (the next sequence number expected)
     */
    public record ReceiverStats(long frames, long batches, long duplicates, long gaps, double mean,
                                Map<Integer, Long> nextSeq) {

        /** Every frame of {@code sensors} streams of {@code perSensor} frames arrived once, in order. */
        public boolean complete(int sensors, long perSensor) {
            return duplicates == 0 && gaps == 0 && frames == (long) sensors * perSensor && nextSeq.size() == sensors
                    && nextSeq.values().stream().allMatch(n -> n == perSensor);
        }
    }
}
