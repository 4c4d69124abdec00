package dev.rivulet.samples.streaming;

import java.util.Locale;

/**
 * What a {@link StreamingDemo} run saw.
 *
 * @param transport               transport name
 * @param messages                messages the producer streamed
 * @param size                    bytes per message
 * @param received                messages the consumer got
 * @param verified                messages whose every byte was right, in order
 * @param mismatches              messages that were wrong or out of order
 * @param elapsedNanos            from the first send to the consumer's completion
 * @param maxSendsInFlightSampled highest {@code sendsInFlight} in the once-a-second samples
 * @param maxSendsInFlight        the sender's own high-water mark of {@code sendsInFlight} (-1: unknown)
 * @param maxReceivesPosted       the receiver's high-water mark of posted receives (-1: unknown)
 * @param receiveQueueDepth       the receive queue depth, hence the most credits outstanding at once
 * @param messagesSent            data messages the sender posted (-1: unknown)
 * @param creditsGranted          credits the receiver granted in total (-1: unknown)
 * @param creditStalls            times a send had to wait for a credit (-1: unknown)
 * @param flowViolations          samples in which a flow-control invariant did not hold
 * @param firstMismatch           the first wrong message, or {@code null}
 * @param failure                 why the run failed other than by content, or {@code null}
 */
public record DemoResult(String transport, long messages, int size, long received, long verified, long mismatches,
                         long elapsedNanos, int maxSendsInFlightSampled, int maxSendsInFlight, int maxReceivesPosted,
                         int receiveQueueDepth, long messagesSent, long creditsGranted, long creditStalls,
                         int flowViolations, String firstMismatch, String failure) {

    /** Messages that never arrived. */
    public long lost() {
        return Math.max(0, messages - received);
    }

    /** Every message arrived once, intact and in order, and credits bounded what was in flight. */
    public boolean ok() {
        return failure == null && mismatches == 0 && received == messages && verified == messages
                && flowViolations == 0
                && maxSendsInFlight <= receiveQueueDepth
                && maxReceivesPosted <= receiveQueueDepth
                && (messagesSent < 0 || creditsGranted < 0 || messagesSent <= creditsGranted);
    }

    public double seconds() {
        return elapsedNanos / 1e9;
    }

    public String summary() {
        double s = seconds();
        String line = String.format(Locale.ROOT,
                "SUMMARY transport=%s messages=%,d size=%dB received=%,d verified=%,d mismatches=%,d lost=%,d "
                        + "elapsed=%.2fs avg=%,.0f msg/s %.2f MB/s | max in-flight: sampled %d, sender high-water %d "
                        + "<= receive queue depth %d; receives posted high-water %d; sent %,d <= granted %,d; "
                        + "credit stalls %,d | %s",
                transport, messages, size, received, verified, mismatches, lost(), s, received / s,
                received * (double) size / s / 1e6, maxSendsInFlightSampled, maxSendsInFlight, receiveQueueDepth,
                maxReceivesPosted, messagesSent, creditsGranted, creditStalls, ok() ? "OK" : "FAILED");
        if (!ok()) {
            StringBuilder why = new StringBuilder(line);
            if (failure != null) {
                why.append(" (").append(failure).append(')');
            }
            if (firstMismatch != null) {
                why.append(" (first mismatch: ").append(firstMismatch).append(')');
            }
            if (flowViolations > 0) {
                why.append(" (").append(flowViolations).append(" samples broke a flow-control invariant)");
            }
            return why.toString();
        }
        return line;
    }
}
