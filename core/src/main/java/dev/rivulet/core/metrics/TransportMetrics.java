package dev.rivulet.core.metrics;

import dev.rivulet.core.engine.OpKind;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;

/**
 * The numbers of one transport, always counted (striped adders, cheap on the progress threads) and published as
 * {@code rivulet.*} meters when bound to a {@link MeterRegistry}:
 *
 * <ul>
 *   <li>{@code rivulet.operations.posted} (op) and {@code rivulet.operations.completed} (op, outcome =
 *       success | error | cancelled)</li>
 *   <li>{@code rivulet.bytes.sent} / {@code rivulet.bytes.received} (base unit bytes)</li>
 *   <li>{@code rivulet.queue.retries}: times the provider answered NO_RESOURCE and an op was parked</li>
 *   <li>{@code rivulet.credit.stalls}: count and total time sends waited for receiver credits</li>
 *   <li>{@code rivulet.pending.depth} and {@code rivulet.inflight}: gauges over all endpoints</li>
 *   <li>{@code rivulet.operation.latency} (op): subscription to completion (ops are timed only while a registry is
 *       bound or an observer is configured)</li>
 *   <li>{@code rivulet.progress.busy.ratio}: share of wall time the polling threads found work</li>
 * </ul>
 * Every meter carries the {@code transport} tag.
 */
public final class TransportMetrics implements MeterBinder {

    private static final OpKind[] KINDS = OpKind.values();

    private final String transport;
    private final DoubleSupplier busyRatio;
    private final LongAdder[] posted = adders();
    private final LongAdder[] succeeded = adders();
    private final LongAdder[] failed = adders();
    private final LongAdder[] cancelled = adders();
    private final LongAdder bytesSent = new LongAdder();
    private final LongAdder bytesReceived = new LongAdder();
    private final LongAdder retries = new LongAdder();
    private final LongAdder creditStalls = new LongAdder();
    private final LongAdder creditStallNanos = new LongAdder();
    private final LongAdder pending = new LongAdder();
    private final LongAdder inFlight = new LongAdder();
    private volatile Timer[] latency;

    public TransportMetrics(String transport, DoubleSupplier busyRatio) {
        this.transport = transport;
        this.busyRatio = busyRatio;
    }

    private static LongAdder[] adders() {
        LongAdder[] a = new LongAdder[KINDS.length];
        for (int i = 0; i < a.length; i++) {
            a[i] = new LongAdder();
        }
        return a;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Timer[] timers = new Timer[KINDS.length];
        for (OpKind k : KINDS) {
            int i = k.ordinal();
            FunctionCounter.builder("rivulet.operations.posted", posted[i], LongAdder::sum)
                    .tags("transport", transport, "op", k.tag).description("Operations posted to the native queue")
                    .register(registry);
            completed(registry, k, "success", succeeded[i]);
            completed(registry, k, "error", failed[i]);
            completed(registry, k, "cancelled", cancelled[i]);
            timers[i] = Timer.builder("rivulet.operation.latency").tags("transport", transport, "op", k.tag)
                    .description("From subscription to completion").register(registry);
        }
        latency = timers;
        FunctionCounter.builder("rivulet.bytes.sent", bytesSent, LongAdder::sum).baseUnit("bytes")
                .tag("transport", transport).register(registry);
        FunctionCounter.builder("rivulet.bytes.received", bytesReceived, LongAdder::sum).baseUnit("bytes")
                .tag("transport", transport).register(registry);
        FunctionCounter.builder("rivulet.queue.retries", retries, LongAdder::sum).tag("transport", transport)
                .description("NO_RESOURCE answers that parked an operation").register(registry);
        FunctionTimer.builder("rivulet.credit.stalls", this, m -> m.creditStalls.sum(),
                        m -> m.creditStallNanos.sum(), TimeUnit.NANOSECONDS)
                .tag("transport", transport).description("Sends waiting for receiver credits").register(registry);
        Gauge.builder("rivulet.pending.depth", pending, LongAdder::sum).tag("transport", transport)
                .description("Operations parked in pending FIFOs").register(registry);
        Gauge.builder("rivulet.inflight", inFlight, LongAdder::sum).tag("transport", transport)
                .description("Operations posted and not yet completed").register(registry);
        Gauge.builder("rivulet.progress.busy.ratio", busyRatio, DoubleSupplier::getAsDouble)
                .tag("transport", transport).register(registry);
    }

    private void completed(MeterRegistry registry, OpKind k, String outcome, LongAdder a) {
        FunctionCounter.builder("rivulet.operations.completed", a, LongAdder::sum)
                .tags("transport", transport, "op", k.tag, "outcome", outcome).register(registry);
    }

    public void posted(OpKind k) {
        posted[k.ordinal()].increment();
        inFlight.increment();
    }

    /**
     * Whether {@link #bindTo} has registered the latency timers. Until then an op's start is not timed: two clock
     * reads per op (about 22 ns each on these VMs) are a tenth of a shm round trip.
     */
    public boolean timesOperations() {
        return latency != null;
    }

    /**
     * A posted op finished; {@code outcome}: 0 success, 1 error, 2 cancelled; {@code nanos} is negative for an op
     * started before the timers were bound (it is not recorded).
     */
    public void finished(OpKind k, boolean wasPosted, int outcome, long nanos) {
        LongAdder a = switch (outcome) {
            case 0 -> succeeded[k.ordinal()];
            case 1 -> failed[k.ordinal()];
            default -> cancelled[k.ordinal()];
        };
        a.increment();
        if (wasPosted) {
            inFlight.decrement();
        }
        Timer[] t = latency;
        if (t != null && outcome == 0 && nanos >= 0) {
            t[k.ordinal()].record(nanos, TimeUnit.NANOSECONDS);
        }
    }

    public void bytesSent(long n) {
        bytesSent.add(n);
    }

    public void bytesReceived(long n) {
        bytesReceived.add(n);
    }

    public void retry() {
        retries.increment();
    }

    public void creditStall(long nanos) {
        creditStalls.increment();
        creditStallNanos.add(nanos);
    }

    public void pendingDelta(int d) {
        pending.add(d);
    }

    public long totalPosted(OpKind k) {
        return posted[k.ordinal()].sum();
    }

    public long totalRetries() {
        return retries.sum();
    }

    public long totalCreditStalls() {
        return creditStalls.sum();
    }

    public long inFlight() {
        return inFlight.sum();
    }

    public long pending() {
        return pending.sum();
    }
}
