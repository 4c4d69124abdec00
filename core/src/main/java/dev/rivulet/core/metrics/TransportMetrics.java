package dev.rivulet.core.metrics;

import dev.rivulet.core.admission.AdmissionControl;
import dev.rivulet.core.admission.ReceiveBudget;
import dev.rivulet.core.engine.OpKind;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.memory.BufferPool;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;

/**
 * The numbers of one transport, always counted (striped adders, cheap on the progress threads) and published as
 * {@code rivulet.*} meters when bound to a {@link MeterRegistry}. Every meter carries two tags: {@code transport},
 * the provider ({@code local}, {@code libfabric/tcp}, {@code io_uring}), and {@code name}, the transport instance
 * ({@code TransportConfig.name}), so several transports can publish to one registry. A transport's meters are removed
 * from every registry they were bound to when it is disposed ({@link #close()}).
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
 *   <li>{@code rivulet.endpoints.open} (gauge) and {@code rivulet.endpoints.closed} (reason = local | peer |
 *       failure): endpoints of this transport and how they ended</li>
 *   <li>{@code rivulet.buffers.outstanding} (gauge): pooled buffers handed out and not yet released;
 *       {@code rivulet.memory.registered} (gauge, bytes): registered memory of the buffer pool;
 *       {@code rivulet.buffers.growth.inline}: times a polling thread registered pool memory itself, the background
 *       growth being behind</li>
 *   <li>{@code rivulet.connections.refused} (bound = listener | source | memory): connections a listener closed at once
 *       because a connection bound was reached; {@code rivulet.handshakes.evicted}: unfinished set-ups ended to make
 *       room for newer connections</li>
 *   <li>{@code rivulet.receive.committed} (gauge, bytes): memory listeners committed for frames ahead of their
 *       bytes; {@code rivulet.frames.slow}: connections ended because a frame arrived slower than
 *       {@code security.minReceiveRate}</li>
 * </ul>
 *
 * <p>A backend publishes meters of its own beside these through {@link #add(BackendMeters)}, with the same tags and
 * the same lifetime.
 */
public final class TransportMetrics implements MeterBinder {

    private static final OpKind[] KINDS = OpKind.values();

    private final String transport;
    private final String name;
    private final DoubleSupplier busyRatio;
    private final BufferPool pool;
    private final LongAdder endpointsOpen = new LongAdder();
    private final LongAdder[] endpointsClosed = {new LongAdder(), new LongAdder(), new LongAdder()};
    private final List<Bound> bound = new CopyOnWriteArrayList<>();
    private final List<BackendMeters> backend = new CopyOnWriteArrayList<>();
    private volatile boolean closed;
    private final LongAdder[] posted = adders();
    private final LongAdder[] succeeded = adders();
    private final LongAdder[] failed = adders();
    private final LongAdder[] cancelled = adders();
    private final LongAdder bytesSent = new LongAdder();
    private final LongAdder bytesReceived = new LongAdder();
    private final LongAdder retries = new LongAdder();
    private final LongAdder discarded = new LongAdder();
    private final LongAdder creditStalls = new LongAdder();
    private final LongAdder creditStallNanos = new LongAdder();
    private final LongAdder pending = new LongAdder();
    private final LongAdder inFlight = new LongAdder();
    private final LongAdder refusedByListenerBound = new LongAdder();
    private final LongAdder refusedBySourceBound = new LongAdder();
    private final LongAdder refusedByMemoryBound = new LongAdder();
    private final LongAdder handshakesEvicted = new LongAdder();
    private final LongAdder receiveCommitted = new LongAdder();
    private final LongAdder slowFrames = new LongAdder();
    private final AdmissionControl.Counters admissionCounters = new AdmissionControl.Counters() {
        @Override
        public void refused(AdmissionControl.Bound bound) {
            (switch (bound) {
                case LISTENER -> refusedByListenerBound;
                case SOURCE -> refusedBySourceBound;
                case MEMORY -> refusedByMemoryBound;
            }).increment();
        }

        @Override
        public void evicted() {
            handshakesEvicted.increment();
        }
    };
    private volatile Timer[] latency;

    /** The meters of one registry, to remove them again. */
    private record Bound(MeterRegistry registry, List<Meter> meters) {
    }

    public TransportMetrics(String transport, String name, DoubleSupplier busyRatio, BufferPool pool) {
        this.transport = transport;
        this.name = name;
        this.busyRatio = busyRatio;
        this.pool = pool;
    }

    public String name() {
        return name;
    }

    private static LongAdder[] adders() {
        LongAdder[] a = new LongAdder[KINDS.length];
        for (int i = 0; i < a.length; i++) {
            a[i] = new LongAdder();
        }
        return a;
    }

    /**
     * Publishes this transport's meters to {@code registry}. A registry that already holds the meters of another
     * transport with the same {@code name} is refused: Micrometer would silently keep only the first.
     */
    @Override
    public synchronized void bindTo(MeterRegistry registry) {
        if (closed) {
            throw new ResourceClosedException("transport " + name + " is disposed; its meters are gone");
        }
        if (registry.find("rivulet.inflight").tags("transport", transport, "name", name).gauge() != null) {
            throw new InvalidRequestException("registry already has rivulet meters of a transport named '" + name
                    + "'; give each transport its own TransportConfig.name");
        }
        Tags base = Tags.of("transport", transport, "name", name);
        List<Meter> meters = new ArrayList<>();
        Timer[] timers = new Timer[KINDS.length];
        for (OpKind k : KINDS) {
            int i = k.ordinal();
            Tags op = base.and("op", k.tag);
            meters.add(FunctionCounter.builder("rivulet.operations.posted", posted[i], LongAdder::sum).tags(op)
                    .description("Operations posted to the native queue").register(registry));
            meters.add(completed(registry, op, "success", succeeded[i]));
            meters.add(completed(registry, op, "error", failed[i]));
            meters.add(completed(registry, op, "cancelled", cancelled[i]));
            timers[i] = Timer.builder("rivulet.operation.latency").tags(op)
                    .description("From subscription to completion").register(registry);
            meters.add(timers[i]);
        }
        meters.add(FunctionCounter.builder("rivulet.bytes.sent", bytesSent, LongAdder::sum).baseUnit("bytes")
                .tags(base).register(registry));
        meters.add(FunctionCounter.builder("rivulet.bytes.received", bytesReceived, LongAdder::sum).baseUnit("bytes")
                .tags(base).register(registry));
        meters.add(FunctionCounter.builder("rivulet.messages.discarded", discarded, LongAdder::sum).tags(base)
                .description("Messages that arrived with nobody listening once a receive linger ran out")
                .register(registry));
        meters.add(FunctionCounter.builder("rivulet.queue.retries", retries, LongAdder::sum).tags(base)
                .description("NO_RESOURCE answers that parked an operation").register(registry));
        meters.add(FunctionTimer.builder("rivulet.credit.stalls", this, m -> m.creditStalls.sum(),
                        m -> m.creditStallNanos.sum(), TimeUnit.NANOSECONDS)
                .tags(base).description("Sends waiting for receiver credits").register(registry));
        meters.add(Gauge.builder("rivulet.pending.depth", pending, LongAdder::sum).tags(base)
                .description("Operations parked in pending FIFOs").register(registry));
        meters.add(Gauge.builder("rivulet.progress.busy.ratio", busyRatio, DoubleSupplier::getAsDouble)
                .tags(base).register(registry));
        meters.add(Gauge.builder("rivulet.endpoints.open", endpointsOpen, LongAdder::sum).tags(base)
                .description("Endpoints of this transport not yet closed").register(registry));
        String[] reasons = {"local", "peer", "failure"};
        for (int i = 0; i < reasons.length; i++) {
            meters.add(FunctionCounter.builder("rivulet.endpoints.closed", endpointsClosed[i], LongAdder::sum)
                    .tags(base.and("reason", reasons[i])).description("Endpoints closed, by who or what ended them")
                    .register(registry));
        }
        meters.add(Gauge.builder("rivulet.buffers.outstanding", pool, BufferPool::outstanding).tags(base)
                .description("Pooled buffers handed out and not yet released").register(registry));
        meters.add(Gauge.builder("rivulet.memory.registered", pool, BufferPool::registeredBytes).tags(base)
                .baseUnit("bytes").description("Registered memory held by the buffer pool").register(registry));
        meters.add(FunctionCounter.builder("rivulet.buffers.growth.inline", pool, BufferPool::inlineGrowths)
                .tags(base).description("Times a polling thread registered pool memory itself, the background "
                        + "growth being behind")
                .register(registry));
        meters.add(FunctionCounter.builder("rivulet.connections.refused", refusedByListenerBound, LongAdder::sum)
                .tags(base.and("bound", "listener")).description("Connections closed at once: a bound was reached")
                .register(registry));
        meters.add(FunctionCounter.builder("rivulet.connections.refused", refusedBySourceBound, LongAdder::sum)
                .tags(base.and("bound", "source")).description("Connections closed at once: a bound was reached")
                .register(registry));
        meters.add(FunctionCounter.builder("rivulet.connections.refused", refusedByMemoryBound, LongAdder::sum)
                .tags(base.and("bound", "memory")).description("Connections closed at once: a bound was reached")
                .register(registry));
        meters.add(FunctionCounter.builder("rivulet.handshakes.evicted", handshakesEvicted, LongAdder::sum)
                .tags(base).description("Unfinished connection set-ups ended to make room for newer connections")
                .register(registry));
        meters.add(Gauge.builder("rivulet.receive.committed", receiveCommitted, LongAdder::sum).tags(base)
                .baseUnit("bytes").description("Memory listeners committed for frames ahead of their bytes")
                .register(registry));
        meters.add(FunctionCounter.builder("rivulet.frames.slow", slowFrames, LongAdder::sum).tags(base)
                .description("Connections ended because a frame arrived slower than security.minReceiveRate")
                .register(registry));
        // Registered last: bindTo's duplicate check looks for it.
        meters.add(Gauge.builder("rivulet.inflight", inFlight, LongAdder::sum).tags(base)
                .description("Operations posted and not yet completed").register(registry));
        try {
            for (BackendMeters b : backend) {
                meters.addAll(backendMeters(b, registry, base));
            }
        } catch (RuntimeException e) {
            meters.forEach(registry::remove); // bound all or not at all
            throw e;
        }
        latency = timers;
        bound.add(new Bound(registry, meters));
        if (closed) { // disposed meanwhile
            close();
        }
    }

    private Meter completed(MeterRegistry registry, Tags op, String outcome, LongAdder a) {
        return FunctionCounter.builder("rivulet.operations.completed", a, LongAdder::sum)
                .tags(op.and("outcome", outcome)).register(registry);
    }

    /**
     * Publishes a backend's own meters with this transport's: on every registry bound so far at once, and on each
     * one bound later. They are removed with the others when the transport is disposed.
     *
     * @throws IllegalArgumentException when a meter is not named {@code rivulet.*} or lacks the standard tags
     */
    public synchronized void add(BackendMeters meters) {
        if (closed) {
            return;
        }
        Tags base = Tags.of("transport", transport, "name", name);
        for (Bound b : bound) {
            b.meters().addAll(backendMeters(meters, b.registry(), base));
        }
        backend.add(meters);
    }

    private List<Meter> backendMeters(BackendMeters b, MeterRegistry registry, Tags base) {
        List<Meter> added = b.bindTo(registry, base);
        for (Meter m : added) {
            Meter.Id id = m.getId();
            if (!id.getName().startsWith("rivulet.") || !transport.equals(id.getTag("transport"))
                    || !name.equals(id.getTag("name"))) {
                added.forEach(registry::remove);
                throw new IllegalArgumentException("backend meter " + id + " must be named rivulet.* and tagged "
                        + base);
            }
        }
        return added;
    }

    /** Removes this transport's meters from every registry they were bound to (the transport is gone). */
    public synchronized void close() {
        closed = true;
        for (Bound b : bound) {
            bound.remove(b);
            b.meters().forEach(b.registry()::remove);
        }
    }

    public void endpointOpened() {
        endpointsOpen.increment();
    }

    /** An endpoint closed: 0 by this side, 1 by its peer, 2 by a failure. */
    public void endpointClosed(int reason) {
        endpointsOpen.decrement();
        endpointsClosed[reason].increment();
    }

    public void posted(OpKind k) {
        posted[k.ordinal()].increment();
        inFlight.increment();
    }

    /** {@code n} operations of kind {@code k} were posted at once (the messages of one frame): one add each. */
    public void posted(OpKind k, int n) {
        posted[k.ordinal()].add(n);
        inFlight.add(n);
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
        finished(k, wasPosted, outcome, nanos, 1);
    }

    /** As {@link #finished(OpKind, boolean, int, long)} for {@code n} operations that finished together. */
    public void finished(OpKind k, boolean wasPosted, int outcome, long nanos, int n) {
        LongAdder a = switch (outcome) {
            case 0 -> succeeded[k.ordinal()];
            case 1 -> failed[k.ordinal()];
            default -> cancelled[k.ordinal()];
        };
        a.add(n);
        if (wasPosted) {
            inFlight.add(-n);
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

    /** {@code n} messages were discarded: nobody listened once the receive linger ran out. */
    public void discarded(int n) {
        discarded.add(n);
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

    /** What this transport's listeners count of their admission decisions. */
    public AdmissionControl.Counters admissionCounters() {
        return admissionCounters;
    }

    private final ReceiveBudget.Counters budgetCounters = new ReceiveBudget.Counters() {
        @Override
        public void committed(long delta) {
            receiveCommitted.add(delta);
        }

        @Override
        public void slowFrame() {
            slowFrames.increment();
        }
    };

    /** What this transport's receive budgets count: memory committed ahead, connections cut for slow frames. */
    public ReceiveBudget.Counters budgetCounters() {
        return budgetCounters;
    }

    /** Memory committed ahead of arrival right now, by all listeners of this transport. */
    public long receiveCommitted() {
        return receiveCommitted.sum();
    }

    /** Connections ended because a frame arrived slower than {@code security.minReceiveRate}. */
    public long slowFrames() {
        return slowFrames.sum();
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

    /** Endpoints of this transport open now. */
    public long endpointsOpen() {
        return endpointsOpen.sum();
    }

    public long inFlight() {
        return inFlight.sum();
    }

    public long pending() {
        return pending.sum();
    }
}
