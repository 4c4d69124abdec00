package dev.rivulet.gpu.staging;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.loop.Pollable;
import dev.rivulet.core.loop.ProgressLoop;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.gpu.CopyEvent;
import dev.rivulet.gpu.CopyStream;
import dev.rivulet.gpu.DeviceMemory;
import dev.rivulet.gpu.DeviceSlice;
import dev.rivulet.gpu.DeviceTransferConfig;
import dev.rivulet.gpu.metrics.GpuMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.FluxSink;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.publisher.Sinks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongFunction;

/**
 * The staged path of one endpoint: staging slots, two copy streams (one per direction, so copies both ways overlap
 * on GPUs with a copy engine per direction), and the outbound and inbound pipelines, driven as a {@link Pollable}
 * by one of the transport's progress loops. All of its state is touched on that loop's thread only; calls from
 * elsewhere are handed over with {@link ProgressLoop#execute}.
 *
 * <p>Copy completions are seen by querying their events on each duty cycle: no thread ever waits for a copy. Where a
 * copy's end raises no wake-up (CUDA: that would take a host callback per copy), the engine reports work while
 * copies are queued, so the loop keeps polling their events instead of parking, as it would poll a completion
 * queue; where it does (the stand-in's copy thread), the loop may sleep and is woken.
 */
public final class StagingEngine implements Pollable {

    private static final Logger log = LoggerFactory.getLogger(StagingEngine.class);

    final Endpoint endpoint;
    final ProgressLoop loop;
    final DeviceMemory memory;
    final CopyStream toHost;
    final CopyStream toDevice;
    final GpuMetrics metrics;
    final DevicePins pins;
    /** The largest chunk (each staging slot's size) and the staging count: what each transfer's chunk follows. */
    private final DeviceTransferConfig chunking;
    private final Slot[] slots;
    private final CopyEvent[] receiveEvents;
    private final OutboundPipeline outbound;
    private final InboundPipeline inbound;
    private final Sinks.Empty<Void> closed = Sinks.empty();
    volatile boolean closing;
    private boolean finished;
    /** Whether both streams wake the loop when a copy ends; otherwise the loop must keep polling while they copy. */
    private final boolean copiesWake;

    private StagingEngine(Endpoint endpoint, ProgressLoop loop, DeviceMemory memory, CopyStream toHost,
                          CopyStream toDevice, DevicePins pins, int chunkSize, Slot[] slots,
                          CopyEvent[] receiveEvents) {
        this.endpoint = endpoint;
        this.loop = loop;
        this.memory = memory;
        this.toHost = toHost;
        this.toDevice = toDevice;
        this.metrics = memory.metrics();
        this.pins = pins;
        this.chunking = DeviceTransferConfig.defaults().chunkSize(chunkSize).stagingBuffers(slots.length);
        this.slots = slots;
        this.receiveEvents = receiveEvents;
        this.outbound = new OutboundPipeline(this, slots);
        this.inbound = new InboundPipeline(this, receiveEvents);
        Runnable wake = loop::wake;
        this.copiesWake = toHost.signalCompletions(wake) & toDevice.signalCompletions(wake);
    }

    /**
     * Allocates and pins {@code staging} slots of {@code chunkSize} bytes (the largest chunk) from the endpoint's
     * memory domain, opens the copy streams and starts polling on {@code loop}. Slots up to the pool's largest
     * buffer are pooled buffers, larger ones buffers with a registration of their own; either way the slot keeps
     * it, registered and pinned, until the engine closes. Blocks (registration, pinning): not on a polling thread.
     */
    public static StagingEngine open(Endpoint endpoint, ProgressLoop loop, DeviceMemory memory, int chunkSize,
                                     int staging, DevicePins pins) {
        List<AutoCloseable> undo = new ArrayList<>();
        try {
            CopyStream toHost = memory.openStream();
            undo.add(toHost);
            CopyStream toDevice = memory.openStream();
            undo.add(toDevice);
            Slot[] slots = new Slot[staging];
            for (int i = 0; i < staging; i++) {
                Buffer b = endpoint.memory().allocate(chunkSize);
                undo.add(b::release);
                memory.pinRegion(b.region());
                CopyEvent up = toHost.newEvent();
                undo.add(up);
                CopyEvent down = toDevice.newEvent();
                undo.add(down);
                slots[i] = new Slot(b, up, down);
            }
            CopyEvent[] receiveEvents = new CopyEvent[staging];
            for (int i = 0; i < staging; i++) {
                receiveEvents[i] = toDevice.newEvent();
                undo.add(receiveEvents[i]);
            }
            StagingEngine e = new StagingEngine(endpoint, loop, memory, toHost, toDevice, pins, chunkSize, slots,
                    receiveEvents);
            memory.metrics().stagingBuffersDelta(staging);
            loop.register(e);
            return e;
        } catch (RuntimeException e) {
            for (int i = undo.size() - 1; i >= 0; i--) {
                try {
                    undo.get(i).close();
                } catch (Exception x) {
                    e.addSuppressed(x);
                }
            }
            throw e;
        }
    }

    // ---- operations, from any thread ----

    public void send(DeviceSlice source, MonoSink<Void> sink) {
        start(new OutboundPipeline.Send(source, chunking.messageChunkFor(source.length()), sink), sink);
    }

    public void put(DeviceSlice source, RemoteMemory target, MonoSink<Void> sink) {
        start(new OutboundPipeline.Put(source, target, chunking.chunkFor(source.length()), sink), sink);
    }

    public void get(RemoteMemory source, DeviceSlice target, MonoSink<Void> sink) {
        start(new OutboundPipeline.Get(source, target, chunking.chunkFor(target.length()), sink), sink);
    }

    private void start(OutboundPipeline.Transfer t, MonoSink<Void> sink) {
        sink.onCancel(() -> run(() -> outbound.cancel(t)));
        run(() -> {
            if (!t.ended && !t.cancelled) {
                outbound.start(t);
            }
        });
    }

    /** Receives device messages into the destinations {@code destinations} names, as {@code sink} demands. */
    public void receive(LongFunction<DeviceSlice> destinations, FluxSink<DeviceSlice> sink) {
        InboundPipeline.Receiver r = new InboundPipeline.Receiver(destinations, sink);
        run(() -> inbound.subscribe(r));
        sink.onRequest(n -> run(() -> inbound.request(r, n)));
        sink.onCancel(() -> run(() -> inbound.cancel(r)));
    }

    /** Staging slots holding a chunk now. */
    public int stagingInUse() {
        return outbound.inUse();
    }

    /** Staging slots whose chunk the network holds now. */
    public int stagingInNetwork() {
        return outbound.inNetwork();
    }

    /** Received chunks held now (at most the staging count). */
    public int receiveHeld() {
        return inbound.held();
    }

    public int stagingBuffers() {
        return slots.length;
    }

    // ---- the loop ----

    @Override
    public int poll() {
        int work = outbound.poll() + inbound.poll();
        if (closing && !finished && outbound.idle() && inbound.idle()) {
            finish();
            return work + 1;
        }
        if (work == 0 && !copiesWake && (outbound.copying() || inbound.copying())) {
            return 1; // a copy is running and its end raises no wake-up: keep polling its event rather than sleep
        }
        return work;
    }

    boolean inLoop() {
        return loop.inLoop();
    }

    /** Runs {@code task} on the loop thread: now when already there, else after the tasks queued before it. */
    void run(Runnable task) {
        if (loop.inLoop()) {
            task.run();
            return;
        }
        try {
            loop.execute(task);
        } catch (RejectedExecutionException gone) {
            // The transport's loops stopped: nothing polls any more, so the engine is shut down where it stands and
            // the task runs here, where it finds the engine closed (a transfer starting now fails at once).
            forceClose();
            synchronized (this) {
                task.run();
            }
        }
    }

    /** Ends a loop's sleep: demand for a message arrived from another thread. */
    void wake() {
        if (!loop.inLoop()) {
            loop.wake();
        }
    }

    TransportException closedError() {
        return new ResourceClosedException("device transfers of " + endpoint.remoteAddress() + " are closed");
    }

    // ---- closing ----

    /**
     * Fails every transfer and receive under way, waits (on the loop) for the copies and network operations still
     * touching staging memory, then releases the slots, events and streams. {@link #onClose()} completes then.
     */
    public void close() {
        run(() -> {
            if (closing) {
                return;
            }
            closing = true;
            TransportException cause = closedError();
            outbound.abandonAll(cause);
            inbound.close(cause);
        });
    }

    public Mono<Void> onClose() {
        return closed.asMono();
    }

    public boolean isClosing() {
        return closing;
    }

    private synchronized void finish() {
        if (finished) {
            return;
        }
        finished = true;
        try {
            loop.deregister(this);
        } catch (RejectedExecutionException stopped) {
            // the loop is gone, and its pollables with it
        }
        for (Slot s : slots) {
            release(s.toHostEvent);
            release(s.toDeviceEvent);
            if (s.buffer.refCnt() > 0) {
                s.buffer.release();
            }
        }
        for (CopyEvent e : receiveEvents) {
            release(e);
        }
        release(toHost);
        release(toDevice);
        metrics.stagingBuffersDelta(-slots.length);
        closed.tryEmitEmpty();
    }

    /** Releases everything at once: the loop that would have waited for copies in flight is gone. */
    private void forceClose() {
        closing = true;
        log.debug("progress loop of {} stopped before its device transfers closed", endpoint.remoteAddress());
        finish();
    }

    private static void release(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            log.warn("closing {} failed", c, e);
        }
    }
}
