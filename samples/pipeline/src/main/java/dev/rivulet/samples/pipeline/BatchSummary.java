package dev.rivulet.samples.pipeline;

/**
 * The receiver's aggregate of one batch: frame count and the lowest, highest and mean value. {@code repeated} marks a
 * batch aggregated before (sent again): it is acknowledged again and not counted twice.
 */
public record BatchSummary(long batchId, int frames, double min, double max, double mean, boolean repeated) {
}
