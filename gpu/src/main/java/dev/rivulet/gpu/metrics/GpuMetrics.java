package dev.rivulet.gpu.metrics;

import dev.rivulet.gpu.CopyDirection;
import dev.rivulet.gpu.TransferPath;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The numbers of one device memory type and of the transfers that use it, always counted (striped adders, cheap on
 * polling threads) and published as {@code rivulet.gpu.*} meters when bound. Every meter is tagged {@code memory}
 * (the memory type: {@code cuda}, {@code host-stand-in}) and {@code device} (its ordinal).
 *
 * <ul>
 *   <li>{@code rivulet.gpu.copy.bytes} (direction = to_host | to_device): bytes copied between host and device</li>
 *   <li>{@code rivulet.gpu.copy.time} (direction): copies and their time from queuing to the completion seen by the
 *       progress loop</li>
 *   <li>{@code rivulet.gpu.staging.in.use} / {@code rivulet.gpu.staging.buffers} (gauges): staging buffers holding a
 *       chunk now, and staging buffers allocated, over every {@code DeviceTransfers}</li>
 *   <li>{@code rivulet.gpu.transfers} (op = send | receive | put | get, path = staged | direct, outcome = success |
 *       error | cancelled) and {@code rivulet.gpu.transfer.bytes} (op, path): device transfers and their bytes, with
 *       the path each took</li>
 *   <li>{@code rivulet.gpu.memory.allocated} (gauge, bytes): device memory allocated</li>
 * </ul>
 */
public final class GpuMetrics implements MeterBinder {

    /** The operations a device transfer can be (the {@code op} tag). */
    public enum TransferOp {
        SEND, RECEIVE, PUT, GET;

        String tag() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** How a transfer ended (the {@code outcome} tag). */
    public enum Outcome {
        SUCCESS, ERROR, CANCELLED;

        String tag() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private static final CopyDirection[] DIRECTIONS = CopyDirection.values();
    private static final TransferOp[] OPS = TransferOp.values();
    private static final TransferPath[] PATHS = TransferPath.values();
    private static final Outcome[] OUTCOMES = Outcome.values();

    private final String memory;
    private final int device;
    private final LongAdder[] copyBytes = adders(DIRECTIONS.length);
    private final LongAdder[] copies = adders(DIRECTIONS.length);
    private final LongAdder[] copyNanos = adders(DIRECTIONS.length);
    private final AtomicLong stagingInUse = new AtomicLong();
    private final AtomicLong stagingBuffers = new AtomicLong();
    private final AtomicLong allocated = new AtomicLong();
    private final LongAdder[] transfers = adders(OPS.length * PATHS.length * OUTCOMES.length);
    private final LongAdder[] transferBytes = adders(OPS.length * PATHS.length);
    private final List<Bound> bound = new CopyOnWriteArrayList<>();

    private record Bound(MeterRegistry registry, List<Meter> meters) {
    }

    public GpuMetrics(String memory, int device) {
        this.memory = memory;
        this.device = device;
    }

    private static LongAdder[] adders(int n) {
        LongAdder[] a = new LongAdder[n];
        for (int i = 0; i < n; i++) {
            a[i] = new LongAdder();
        }
        return a;
    }

    // ---- recording ----

    /** A copy of {@code bytes} finished {@code nanos} after it was queued. */
    public void copied(CopyDirection d, long bytes, long nanos) {
        copyBytes[d.ordinal()].add(bytes);
        copies[d.ordinal()].increment();
        copyNanos[d.ordinal()].add(nanos);
    }

    public void stagingInUseDelta(int delta) {
        stagingInUse.addAndGet(delta);
    }

    public void stagingBuffersDelta(int delta) {
        stagingBuffers.addAndGet(delta);
    }

    public void allocatedDelta(long bytes) {
        allocated.addAndGet(bytes);
    }

    /** A device transfer of {@code bytes} ended. */
    public void transferEnded(TransferOp op, TransferPath path, Outcome outcome, long bytes) {
        transfers[(op.ordinal() * PATHS.length + path.ordinal()) * OUTCOMES.length + outcome.ordinal()].increment();
        if (outcome == Outcome.SUCCESS) {
            transferBytes[op.ordinal() * PATHS.length + path.ordinal()].add(bytes);
        }
    }

    // ---- reading (tests, benchmarks) ----

    public long copyBytes(CopyDirection d) {
        return copyBytes[d.ordinal()].sum();
    }

    public long copies(CopyDirection d) {
        return copies[d.ordinal()].sum();
    }

    public long stagingInUse() {
        return stagingInUse.get();
    }

    public long stagingBuffers() {
        return stagingBuffers.get();
    }

    public long allocatedBytes() {
        return allocated.get();
    }

    public long transfers(TransferOp op, TransferPath path, Outcome outcome) {
        return transfers[(op.ordinal() * PATHS.length + path.ordinal()) * OUTCOMES.length + outcome.ordinal()].sum();
    }

    // ---- publishing ----

    @Override
    public void bindTo(MeterRegistry registry) {
        Tags base = Tags.of("memory", memory, "device", Integer.toString(device));
        List<Meter> meters = new ArrayList<>();
        for (CopyDirection d : DIRECTIONS) {
            Tags t = base.and("direction", d.tag());
            int i = d.ordinal();
            meters.add(FunctionCounter.builder("rivulet.gpu.copy.bytes", copyBytes[i], LongAdder::sum).tags(t)
                    .baseUnit("bytes").description("Bytes copied between host and device").register(registry));
            meters.add(FunctionTimer.builder("rivulet.gpu.copy.time", this, m -> m.copies[i].sum(),
                            m -> m.copyNanos[i].sum(), TimeUnit.NANOSECONDS).tags(t)
                    .description("Copies between host and device, from queuing to observed completion")
                    .register(registry));
        }
        meters.add(Gauge.builder("rivulet.gpu.staging.in.use", stagingInUse, AtomicLong::get).tags(base)
                .description("Staging buffers holding a chunk").register(registry));
        meters.add(Gauge.builder("rivulet.gpu.staging.buffers", stagingBuffers, AtomicLong::get).tags(base)
                .description("Staging buffers allocated").register(registry));
        meters.add(Gauge.builder("rivulet.gpu.memory.allocated", allocated, AtomicLong::get).tags(base)
                .baseUnit("bytes").description("Device memory allocated").register(registry));
        for (TransferOp op : OPS) {
            for (TransferPath path : PATHS) {
                Tags t = base.and("op", op.tag(), "path", path.tag());
                for (Outcome o : OUTCOMES) {
                    LongAdder a = transfers[(op.ordinal() * PATHS.length + path.ordinal()) * OUTCOMES.length
                            + o.ordinal()];
                    meters.add(FunctionCounter.builder("rivulet.gpu.transfers", a, LongAdder::sum)
                            .tags(t.and("outcome", o.tag())).description("Device transfers and the path they took")
                            .register(registry));
                }
                meters.add(FunctionCounter.builder("rivulet.gpu.transfer.bytes",
                                transferBytes[op.ordinal() * PATHS.length + path.ordinal()], LongAdder::sum).tags(t)
                        .baseUnit("bytes").description("Bytes of device transfers that succeeded")
                        .register(registry));
            }
        }
        bound.add(new Bound(registry, meters));
    }

    /** Removes the meters from every registry they were bound to (the memory type closed). */
    public void close() {
        for (Bound b : bound) {
            b.meters().forEach(b.registry()::remove);
        }
        bound.clear();
    }
}
