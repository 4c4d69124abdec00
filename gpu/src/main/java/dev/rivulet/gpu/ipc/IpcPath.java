package dev.rivulet.gpu.ipc;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.error.InvalidMemoryException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.error.TransportUnavailableException;
import dev.rivulet.core.loop.Pollable;
import dev.rivulet.core.loop.ProgressLoop;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.spi.Availability;
import dev.rivulet.gpu.CopyEvent;
import dev.rivulet.gpu.CopyStream;
import dev.rivulet.gpu.DeviceBuffer;
import dev.rivulet.gpu.DeviceMemory;
import dev.rivulet.gpu.DeviceSlice;
import dev.rivulet.gpu.PeerMapping;
import dev.rivulet.gpu.TransferPath;
import dev.rivulet.gpu.metrics.GpuMetrics.Outcome;
import dev.rivulet.gpu.metrics.GpuMetrics.TransferOp;
import dev.rivulet.gpu.staging.DevicePins;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The IPC path of one {@code DeviceTransfers}: grants its buffers to the peer process as {@link DeviceWindow}s, and
 * puts and gets into the peer's windows as device-to-device copies on a copy stream of its own, whose events the
 * progress loop polls as it polls the staged path's.
 *
 * <p>Mapped windows are watched: every {@link #POLL} each window's control word is read (an atomic add of zero), and
 * a window the exporter revoked is unmapped once no copy of it is in flight. Closing (the endpoint closed, or the
 * transfers disposed) refuses new transfers, revokes this side's grants and unmaps every window after its copies.
 */
public final class IpcPath {

    private static final Logger log = LoggerFactory.getLogger(IpcPath.class);
    static final Duration POLL = Duration.ofMillis(15);

    private final Endpoint endpoint;
    private final ProgressLoop loop;
    private final DeviceMemory memory;
    private final DevicePins pins;
    private final Map<String, ImportedWindow> windows = new HashMap<>(); // guarded by this
    private final Set<DeviceGrant> grants = ConcurrentHashMap.newKeySet();
    private final ConcurrentLinkedQueue<CopyEvent> events = new ConcurrentLinkedQueue<>();
    private final ArrayDeque<IpcTransfer> copying = new ArrayDeque<>(); // the loop's
    private final Pollable poller = this::pollCopies;
    private final Sinks.Empty<Void> closed = Sinks.empty();
    private final Object streamLock = new Object();
    private @Nullable CopyStream stream; // guarded by streamLock
    private @Nullable Disposable watcher; // guarded by this
    private int active; // guarded by this: transfers between their start and their end
    private int unmapping; // guarded by this: windows being unmapped
    private volatile boolean copiesWake; // the stream wakes the loop when a copy ends
    private boolean closing; // guarded by this
    private boolean released; // guarded by this

    public IpcPath(Endpoint endpoint, ProgressLoop loop, DeviceMemory memory, DevicePins pins) {
        this.endpoint = endpoint;
        this.loop = loop;
        this.memory = memory;
        this.pins = pins;
    }

    /** Whether puts and gets into device windows, and grants, work with this memory type here. */
    public Availability availability() {
        return memory.ipcAvailability();
    }

    /** See {@code DeviceTransfers.grant}. May block. */
    public DeviceGrant grant(DeviceBuffer buffer, Access... rights) {
        if (buffer == null) {
            throw new InvalidRequestException("buffer is null");
        }
        synchronized (this) {
            if (closing) {
                throw new ResourceClosedException("device transfers are closed");
            }
        }
        DeviceGrant g = DeviceGrant.create(endpoint, memory, buffer, pins, rights);
        grants.add(g);
        g.onRevoked().subscribe(null, null, () -> grants.remove(g));
        return g;
    }

    /**
     * A put ({@code local} into {@code window}) or a get ({@code window} into {@code local}) as one device-to-device
     * copy; {@code local.length()} bytes at the window's start.
     */
    public Mono<Void> transfer(TransferOp op, DeviceSlice local, DeviceWindow window) {
        if (local == null || window == null) {
            return Mono.error(new InvalidRequestException("slice and window must not be null"));
        }
        return Mono.create(sink -> {
            ImportedWindow imported;
            boolean first;
            long owed;
            boolean pinned = false;
            try {
                check(op, local, window);
                synchronized (this) {
                    if (closing) {
                        throw new ResourceClosedException("device transfers are closed");
                    }
                    if (!pins.tryPin(local.buffer())) {
                        throw new InvalidMemoryException("device buffer is closed");
                    }
                    pinned = true;
                    String key = IpcExports.key(window.token());
                    imported = windows.get(key);
                    if (imported != null && imported.revoked) {
                        throw new RemoteAccessException("device window was revoked");
                    }
                    if (imported == null || imported.ending) {
                        // A window dropped for another reason (refused, failed to map) is being closed: start anew.
                        imported = new ImportedWindow(window);
                        windows.put(key, imported);
                    } else if (!imported.sameGrant(window)) {
                        throw new RemoteAccessException("device window does not match the grant its token names");
                    }
                    imported.users++;
                    active++;
                    first = !imported.counted;
                    imported.counted = true;
                    if (watcher == null) {
                        watcher = Flux.interval(POLL, POLL, Schedulers.parallel()).subscribe(t -> watch());
                    }
                    owed = imported.owed;
                    imported.owed = 0;
                }
            } catch (RuntimeException e) {
                if (pinned) {
                    pins.unpin(local.buffer());
                }
                memory.metrics().transferEnded(op, TransferPath.IPC, Outcome.ERROR, local.length());
                sink.error(e);
                return;
            }
            new IpcTransfer(this, op, local, window, imported, first, owed, sink).start();
        });
    }

    private void check(TransferOp op, DeviceSlice local, DeviceWindow window) {
        Availability ipc = memory.ipcAvailability();
        if (!ipc.available()) {
            throw new TransportUnavailableException("device memory cannot be shared between processes: "
                    + ipc.reason());
        }
        if (local.memory() != memory) {
            throw new InvalidMemoryException("slice is " + local.memory().kind() + " memory of another memory type");
        }
        if (!window.host().equals(HostIdentity.current())) {
            throw new InvalidRequestException("device window comes from another host (" + window.host()
                    + "; this is " + HostIdentity.current() + "): IPC windows open only on the host that granted them");
        }
        if (!window.kind().equals(memory.kind())) {
            throw new InvalidMemoryException("device window is " + window.kind() + " memory; these transfers move "
                    + memory.kind() + " memory");
        }
        Access needed = op == TransferOp.PUT ? Access.REMOTE_WRITE : Access.REMOTE_READ;
        if (!window.rights().contains(needed)) {
            throw new RemoteAccessException("device window does not grant " + needed);
        }
        if (local.length() > window.length()) {
            throw new InvalidRequestException(op.name().toLowerCase(java.util.Locale.ROOT) + " of "
                    + local.length() + " bytes exceeds the device window of " + window.length());
        }
    }

    Endpoint endpoint() {
        return endpoint;
    }

    DeviceMemory memory() {
        return memory;
    }

    /** Opens the copy stream and starts polling copies, once (may block). */
    void openStream() {
        synchronized (streamLock) {
            if (stream == null) {
                stream = memory.openStream();
                copiesWake = stream.signalCompletions(loop::wake);
                loop.register(poller);
            }
        }
    }

    @Nullable CopyEvent takeEvent() {
        return events.poll();
    }

    void giveEvent(CopyEvent e) {
        events.offer(e);
    }

    /**
     * Creates an event on a thread that may block, then runs {@code then} (the transfer's next step), or
     * {@code failed} when no event could be made.
     */
    void withNewEvent(Runnable then, java.util.function.Consumer<RuntimeException> failed) {
        Schedulers.boundedElastic().schedule(() -> {
            try {
                CopyEvent e;
                synchronized (streamLock) {
                    if (stream == null) {
                        throw new ResourceClosedException("copy stream is closed");
                    }
                    e = stream.newEvent();
                }
                events.offer(e);
            } catch (RuntimeException x) {
                failed.accept(x);
                return;
            }
            then.run();
        });
    }

    /** Queues the copy of a transfer (one thread at a time queues on the stream). */
    void queueCopy(TransferOp op, DeviceSlice local, PeerMapping peer, long peerOffset, CopyEvent e) {
        synchronized (streamLock) {
            CopyStream s = stream;
            if (s == null) {
                throw new ResourceClosedException("copy stream is closed");
            }
            if (op == TransferOp.PUT) {
                s.copyToPeer(local.buffer(), local.offset(), peer, peerOffset, local.length(), e);
            } else {
                s.copyFromPeer(peer, peerOffset, local.buffer(), local.offset(), local.length(), e);
            }
        }
    }

    /** Hands a transfer whose copy is queued to the progress loop, which polls its event. */
    void watch(IpcTransfer t) {
        if (loop.inLoop()) {
            copying.add(t); // queued from the loop itself (a transfer chained on the last one's end): no task hop
            return;
        }
        try {
            loop.execute(() -> copying.add(t));
        } catch (java.util.concurrent.RejectedExecutionException stopped) {
            // The transport's loops stopped: the copy still ends, seen by a poll on another thread.
            Flux.interval(POLL, Schedulers.parallel()).filter(i -> t.pollCopy()).next().subscribe();
        }
    }

    private int pollCopies() {
        int done = 0;
        for (Iterator<IpcTransfer> it = copying.iterator(); it.hasNext(); ) {
            if (it.next().pollCopy()) {
                it.remove();
                done++;
            }
        }
        // A copy whose end raises no wake-up (CUDA) is polled on every cycle rather than after the loop's sleep.
        return done > 0 || copiesWake || copying.isEmpty() ? done : 1;
    }

    /**
     * Reads the control word of every window counted as mapped, taking back the operations of ended transfers meanwhile; a
     * revoked window is unmapped once unused.
     */
    private void watch() {
        List<ImportedWindow> mapped = new ArrayList<>();
        List<Long> owed = new ArrayList<>();
        synchronized (this) {
            for (ImportedWindow w : windows.values()) {
                // Counted, not only mapped: a window whose first transfers were all cancelled before it was mapped
                // is counted as mapped by the exporter all the same, and must see the revocation to uncount itself.
                if (w.counted && !w.ending && !w.pollInFlight) {
                    w.pollInFlight = true;
                    mapped.add(w);
                    owed.add(w.owed);
                    w.owed = 0;
                }
            }
        }
        for (int i = 0; i < mapped.size(); i++) {
            ImportedWindow w = mapped.get(i);
            long taken = owed.get(i);
            endpoint.fetchAdd(w.word, -taken * ControlBlock.OPERATION).subscribe(word -> {
                synchronized (this) {
                    w.pollInFlight = false;
                }
                if (ControlBlock.revoked(word)) {
                    windowRevoked(w);
                }
            }, e -> {
                synchronized (this) {
                    w.pollInFlight = false;
                    w.owed += taken;
                }
                log.debug("reading the control word of {} failed", w.grant, e);
            });
        }
    }

    void windowRevoked(ImportedWindow w) {
        synchronized (this) {
            w.revoked = true;
        }
        end(w);
    }

    /** The window could not be used (refused, or its mapping failed to open): dropped once unused. */
    void windowBroken(ImportedWindow w, boolean notCounted) {
        synchronized (this) {
            if (notCounted) {
                w.counted = false;
            }
        }
        end(w);
    }

    private void end(ImportedWindow w) {
        synchronized (this) {
            w.ending = true;
        }
        closeIfUnused(w);
    }

    /** A transfer's copy ended (or never ran): its local buffer is free again. */
    void transferEnded(IpcTransfer t, @Nullable Throwable outcome) {
        pins.unpin(t.local().buffer());
        memory.metrics().transferEnded(t.op(), TransferPath.IPC, outcome != null ? Outcome.ERROR
                : t.cancelled() ? Outcome.CANCELLED : Outcome.SUCCESS, t.local().length());
    }

    /** Gives back operations a transfer took to uncount but could not (its count failed or was never sent). */
    void restoreOwed(ImportedWindow w, long owed) {
        synchronized (this) {
            w.owed += owed;
        }
    }

    /**
     * A transfer of {@code w} ended: its operation, if {@code counted}, is owed to the control word (taken back with
     * the next count, the next poll, or the window's close), and the window may close.
     */
    void operationDone(ImportedWindow w, boolean counted) {
        synchronized (this) {
            if (counted) {
                w.owed++;
            }
            w.users--;
            active--;
        }
        closeIfUnused(w);
        releaseIfDone();
    }

    /**
     * Unmaps an ending window once no transfer uses it, then tells the exporter it is no longer mapped (and takes
     * back the operations still owed).
     */
    private void closeIfUnused(ImportedWindow w) {
        Mono<PeerMapping> opening;
        synchronized (this) {
            if (!w.ending || w.users > 0 || w.closed) {
                return;
            }
            w.closed = true;
            windows.remove(IpcExports.key(w.grant.token()), w);
            opening = w.opening();
            unmapping++;
        }
        Mono<Void> unmapped = opening == null ? Mono.empty() : opening
                .publishOn(Schedulers.boundedElastic())
                .doOnNext(PeerMapping::close)
                .onErrorResume(e -> Mono.empty())
                .then();
        unmapped.then(Mono.defer(() -> {
                    long back;
                    synchronized (this) {
                        back = w.owed * ControlBlock.OPERATION + (w.counted ? ControlBlock.MAPPED : 0);
                        w.owed = 0;
                    }
                    return back == 0 ? Mono.<Void>empty()
                            : endpoint.fetchAdd(w.word, -back).then().onErrorResume(e -> Mono.empty());
                }))
                .doFinally(s -> {
                    synchronized (this) {
                        unmapping--;
                    }
                    releaseIfDone();
                })
                .subscribe(null, e -> log.warn("closing the mapping of {} failed", w.grant, e));
    }

    /**
     * Refuses new transfers, revokes this side's grants, and unmaps every window once its copies ended;
     * {@link #onClose()} completes when all of that is done and the stream and events are released. Idempotent.
     */
    public void close() {
        List<ImportedWindow> open;
        synchronized (this) {
            if (closing) {
                return;
            }
            closing = true;
            if (watcher != null) {
                watcher.dispose();
            }
            open = List.copyOf(windows.values());
        }
        for (DeviceGrant g : List.copyOf(grants)) {
            g.revoke();
        }
        for (ImportedWindow w : open) {
            end(w);
        }
        releaseIfDone();
    }

    private void releaseIfDone() {
        synchronized (this) {
            if (!closing || released || active > 0 || unmapping > 0 || !windows.isEmpty()) {
                return;
            }
            released = true;
        }
        Mono.when(grants.stream().map(DeviceGrant::revoke).toList())
                .publishOn(Schedulers.boundedElastic())
                .doFinally(s -> {
                    releaseStream();
                    closed.tryEmitEmpty();
                })
                .subscribe(null, e -> log.warn("revoking device grants failed", e));
    }

    private void releaseStream() {
        synchronized (streamLock) {
            for (CopyEvent e; (e = events.poll()) != null; ) {
                e.close();
            }
            if (stream != null) {
                stream.close();
                stream = null;
                try {
                    loop.deregister(poller);
                } catch (java.util.concurrent.RejectedExecutionException stopped) {
                    // The loop stopped and polls nothing any more.
                }
            }
        }
    }

    /** Completes once {@link #close()} has released everything. */
    public Mono<Void> onClose() {
        return closed.asMono();
    }
}
