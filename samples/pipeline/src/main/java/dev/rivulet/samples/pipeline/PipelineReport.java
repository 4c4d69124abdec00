package dev.rivulet.samples.pipeline;

/**
 * What the sender saw: frames and batches acknowledged, and the most batches it had waiting for an
 * acknowledgement at once.
 */
public record PipelineReport(long frames, long batches, int maxOutstanding) {

    static final PipelineReport EMPTY = new PipelineReport(0, 0, 0);

    PipelineReport plus(Ack ack) {
        return new PipelineReport(frames + ack.frames(), batches + 1, maxOutstanding);
    }

    PipelineReport withMaxOutstanding(int n) {
        return new PipelineReport(frames, batches, n);
    }
}
