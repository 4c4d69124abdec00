package dev.rivulet.gpu;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Transport;
import dev.rivulet.core.error.InvalidMemoryException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.TransportUnavailableException;
import dev.rivulet.core.loop.ProgressEngine;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.core.spi.Availability;
import dev.rivulet.gpu.direct.DirectPath;
import dev.rivulet.gpu.ipc.DeviceGrant;
import dev.rivulet.gpu.ipc.DeviceWindow;
import dev.rivulet.gpu.ipc.IpcPath;
import dev.rivulet.gpu.metrics.GpuMetrics.Outcome;
import dev.rivulet.gpu.metrics.GpuMetrics.TransferOp;
import dev.rivulet.gpu.staging.DevicePins;
import dev.rivulet.gpu.staging.StagingEngine;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;
import reactor.core.scheduler.Schedulers;

import java.util.function.LongFunction;

/**
 * Device memory over one {@link Endpoint}: send, receive, put and get of {@link DeviceSlice}s, as the endpoint does
 * with host memory, with no staging left to the caller.
 *
 * <pre>{@code
 * DeviceTransfers gpu = DeviceTransfers.open(transport, endpoint, CudaMemory.open(0),
 *         DeviceTransferConfig.defaults()).block();
 * gpu.send(tensor.slice()).block();                       // device → staging → wire, chunk by chunk
 * peer.receiveInto(landing.slice()).block();              // wire → staging → device, on the other side
 * gpu.put(tensor.slice(), remoteWindow).block();          // direct (FI_HMEM) where the provider can, else staged
 * }</pre>
 *
 * <p>Every method is lazy: nothing moves until the returned publisher is subscribed. Signals arrive on the
 * transport's polling thread, as the endpoint's own do. A device buffer used by a transfer is pinned for as long as
 * copies or network operations may touch it, cancelled transfers included: closing it meanwhile frees it after.
 *
 * <p>Paths ({@link #capabilities()}): messages are always staged (Rivulet messages are pooled host buffers on both
 * sides); puts and gets go direct where the transport's provider registers device memory ({@code FI_HMEM}) and the
 * configuration allows it, staged otherwise. The staged path cuts a transfer into chunks of at most
 * {@link DeviceTransferConfig#chunkSize()} ({@link DeviceTransferConfig#chunkFor(long)} says how each transfer's
 * is chosen) and keeps up to {@link DeviceTransferConfig#stagingBuffers()} of them in
 * flight per direction, so device copies overlap network transfers and a slow receiver stalls the sender's copies.
 *
 * <p>Receiving takes over the endpoint's {@code receive()}: an endpoint carries either device messages or plain
 * ones, not both. Closing the endpoint closes this too.
 */
public final class DeviceTransfers implements Disposable {

    private static final DevicePins PINS = new DevicePins() {
        @Override
        public boolean tryPin(DeviceBuffer buffer) {
            return buffer.tryPin();
        }

        @Override
        public void unpin(DeviceBuffer buffer) {
            buffer.unpin();
        }
    };

    private final Endpoint endpoint;
    private final DeviceMemory memory;
    private final DeviceTransferConfig config;
    private final StagingEngine staged;
    private final @Nullable DirectPath direct;
    private final DeviceTransferCapabilities capabilities;
    private final IpcPath ipc;

    private DeviceTransfers(Endpoint endpoint, DeviceMemory memory, DeviceTransferConfig config, StagingEngine staged,
                            @Nullable DirectPath direct, String directReason, IpcPath ipc) {
        this.endpoint = endpoint;
        this.memory = memory;
        this.config = config;
        this.staged = staged;
        this.direct = direct;
        this.ipc = ipc;
        this.capabilities = new DeviceTransferCapabilities(TransferPath.STAGED,
                direct != null ? TransferPath.DIRECT : TransferPath.STAGED, directReason, config.chunkSize(),
                config.stagingBuffers(), ipc.availability().available() ? "available" : ipc.availability().reason());
    }

    /**
     * Device transfers of {@code memory} over {@code endpoint}, an endpoint of {@code transport}. Allocates and
     * registers the staging buffers, pins them for the device, and probes the direct path; all of that on a thread
     * that may block, when subscribed.
     *
     * @return fails with {@link TransportUnavailableException} when {@link PathSelection#DIRECT} was asked for and
     * the direct path is unavailable (the message says why), with {@link InvalidRequestException} when the endpoint
     * is not one of {@code transport}'s or the chunk size exceeds what the transport can carry in one message
     */
    public static Mono<DeviceTransfers> open(Transport transport, Endpoint endpoint, DeviceMemory memory,
                                             DeviceTransferConfig config) {
        return Mono.fromCallable(() -> create(transport, endpoint, memory, config))
                .subscribeOn(Schedulers.boundedElastic());
    }

    private static DeviceTransfers create(Transport transport, Endpoint endpoint, DeviceMemory memory,
                                          DeviceTransferConfig config) {
        if (transport == null || endpoint == null || memory == null || config == null) {
            throw new InvalidRequestException("transport, endpoint, memory and config must not be null");
        }
        ProgressEngine loops = transport.extension(ProgressEngine.class).orElseThrow(() ->
                new InvalidRequestException("device transfers need a transport with Rivulet's polling threads, not "
                        + transport));
        if (endpoint.memory() != transport.memory()) {
            throw new InvalidRequestException("the endpoint does not belong to transport " + transport.id());
        }
        long maxMessage = endpoint.capabilities().maxMessageSize();
        if (config.chunkSize() > maxMessage) {
            throw new InvalidRequestException("chunk size " + config.chunkSize() + " exceeds the largest message of "
                    + transport.name() + " (" + maxMessage + ")");
        }
        Availability directAvailable = config.paths() == PathSelection.STAGED
                ? Availability.no("staged path chosen (PathSelection.STAGED)")
                : DirectPath.probe(transport, memory);
        if (config.paths() == PathSelection.DIRECT && !directAvailable.available()) {
            throw new TransportUnavailableException("direct device path unavailable: " + directAvailable.reason());
        }
        StagingEngine engine = StagingEngine.open(endpoint, loops.nextLoop(), memory,
                config.chunkSize(), config.stagingBuffers(), PINS);
        DirectPath direct = directAvailable.available() ? DirectPath.open(transport, endpoint, memory) : null;
        IpcPath ipc = new IpcPath(endpoint, loops.nextLoop(), memory, PINS);
        DeviceTransfers d = new DeviceTransfers(endpoint, memory, config, engine, direct, directAvailable.reason(),
                ipc);
        endpoint.onClose().subscribe(null, e -> d.dispose(), d::dispose);
        return d;
    }

    /**
     * Sends {@code source} as one device message (a header and its chunks, in order with other sends of this
     * object). Completes once every chunk was sent as the endpoint's sends complete; a failed copy fails this
     * message alone; cancelling stops further chunks, and the receiver sees the message aborted.
     */
    public Mono<Void> send(DeviceSlice source) {
        if (source == null) {
            return Mono.error(new InvalidRequestException("source is null"));
        }
        if (source.memory() != memory) {
            return Mono.error(foreign(source));
        }
        return Mono.create(sink -> staged.send(source, sink));
    }

    /**
     * Device messages from the peer, each copied into the slice {@code destinations} names for its length (called on
     * the polling thread; it must not block). Emits each destination narrowed to the message once its last byte is
     * in device memory, in order; demand of {@code n} lets {@code n} messages in. One subscriber at a time. A
     * message that does not fit its destination fails the flux with {@link
     * dev.rivulet.core.error.MessageTooLargeException}, one the sender gave up with {@link
     * TransferAbortedException}. Completes when the peer closes the endpoint.
     */
    public Flux<DeviceSlice> receive(LongFunction<DeviceSlice> destinations) {
        if (destinations == null) {
            return Flux.error(new InvalidRequestException("destinations is null"));
        }
        return Flux.create(sink -> staged.receive(destinations, sink), FluxSink.OverflowStrategy.ERROR);
    }

    /** The next device message, copied into {@code destination}; emits the part of it the message filled. */
    public Mono<DeviceSlice> receiveInto(DeviceSlice destination) {
        if (destination == null) {
            return Mono.error(new InvalidRequestException("destination is null"));
        }
        // take(1) asks for exactly one message, so no second one is started and then dropped.
        return receive(length -> destination).take(1, true).singleOrEmpty();
    }

    /** Writes {@code source} into the peer's memory at {@code target} ({@code source.length() <= target.length()}). */
    public Mono<Void> put(DeviceSlice source, RemoteMemory target) {
        if (source == null || target == null) {
            return Mono.error(new InvalidRequestException("source and target must not be null"));
        }
        if (source.memory() != memory) {
            return Mono.error(foreign(source));
        }
        if (direct != null) {
            return directly(TransferOp.PUT, source, () -> direct.put(source, target));
        }
        return Mono.create(sink -> staged.put(source, target, sink));
    }

    /** Reads {@code target.length()} bytes of the peer's memory at {@code source} into {@code target}. */
    public Mono<Void> get(RemoteMemory source, DeviceSlice target) {
        if (source == null || target == null) {
            return Mono.error(new InvalidRequestException("source and target must not be null"));
        }
        if (target.memory() != memory) {
            return Mono.error(foreign(target));
        }
        if (direct != null) {
            return directly(TransferOp.GET, target, () -> direct.get(source, target));
        }
        return Mono.create(sink -> staged.get(source, target, sink));
    }

    /**
     * Lets the peer process of this endpoint, on the same host, map all of {@code buffer} and put into it
     * ({@link Access#REMOTE_WRITE}) and get from it ({@link Access#REMOTE_READ}) with device-to-device copies (CUDA
     * IPC): send it {@code grant.remote()}. Only whole buffers are granted, because an IPC handle maps the whole
     * allocation into the peer: a window on part of it would still let the peer's process reach all of it, so
     * this never exposes more than the caller granted. The peer enforces rights and revocation itself: grant only
     * to processes you trust. The buffer stays allocated until the grant is revoked ({@link DeviceGrant#revoke()},
     * or this endpoint closes). May block (not on a polling thread).
     *
     * @throws dev.rivulet.core.error.TransportUnavailableException when this memory type cannot share buffers
     *                                                              between processes (the message says why)
     * @throws InvalidMemoryException when the buffer is closed or of another memory type
     * @throws InvalidRequestException when {@code rights} names other rights than remote read and write
     */
    public DeviceGrant grant(DeviceBuffer buffer, Access... rights) {
        return ipc.grant(buffer, rights);
    }

    /**
     * Writes {@code source} into the peer's device memory at the start of {@code target} (granted to this
     * endpoint's connection, {@link #grant}) as one device-to-device copy on this side's copy stream, with no host
     * memory in between ({@link TransferPath#IPC}). Completes when the copy is done. Fails with
     * {@link dev.rivulet.core.error.RemoteAccessException} when the window does not grant remote writes, was revoked
     * or does not match its grant, with {@link InvalidRequestException} when {@code source} is longer than the
     * window or the window comes from another host.
     */
    public Mono<Void> put(DeviceSlice source, DeviceWindow target) {
        return ipc.transfer(TransferOp.PUT, source, target);
    }

    /**
     * Reads {@code target.length()} bytes at the start of the peer's window {@code source} into {@code target}, as
     * {@link #put(DeviceSlice, DeviceWindow)} writes (remote read needed).
     */
    public Mono<Void> get(DeviceWindow source, DeviceSlice target) {
        return ipc.transfer(TransferOp.GET, target, source);
    }

    private Mono<Void> directly(TransferOp op, DeviceSlice device, java.util.function.Supplier<Mono<Void>> transfer) {
        return Mono.defer(() -> {
            if (!device.buffer().tryPin()) {
                return Mono.error(new InvalidMemoryException("device buffer is closed"));
            }
            // The provider's registration outlives a cancelled operation: the buffer is freed only after it closed.
            return transfer.get().doFinally(signal -> {
                device.buffer().unpin();
                memory.metrics().transferEnded(op, TransferPath.DIRECT, signal == SignalType.ON_COMPLETE
                        ? Outcome.SUCCESS : signal == SignalType.CANCEL ? Outcome.CANCELLED : Outcome.ERROR,
                        device.length());
            });
        });
    }

    private InvalidMemoryException foreign(DeviceSlice s) {
        return new InvalidMemoryException("slice is " + s.memory().kind() + " memory; these transfers move "
                + memory.kind() + " memory");
    }

    /** Which path each kind of transfer takes here, and why not the direct one. */
    public DeviceTransferCapabilities capabilities() {
        return capabilities;
    }

    public DeviceTransferConfig config() {
        return config;
    }

    public Endpoint endpoint() {
        return endpoint;
    }

    public DeviceMemory memory() {
        return memory;
    }

    /** Staging buffers holding an outgoing (or fetched) chunk now; at most {@link DeviceTransferConfig#stagingBuffers()}. */
    public int stagingInUse() {
        return staged.stagingInUse();
    }

    /**
     * Staging buffers whose chunk the network holds now (a message not yet completed, a put or get in flight): while
     * one is, another chunk's device copy can run, which is the overlap the staging buffers are for.
     */
    public int stagingInNetwork() {
        return staged.stagingInNetwork();
    }

    /** Received chunks held until their copy to the device is done; at most the staging count. */
    public int receivedInFlight() {
        return staged.receiveHeld();
    }

    /**
     * Fails the transfers under way ({@link dev.rivulet.core.error.ResourceClosedException}) and releases the
     * staging buffers once no copy or network operation touches them any more; {@link #onClose()} completes then.
     * Does not close the endpoint or the device memory.
     */
    @Override
    public void dispose() {
        ipc.close();
        staged.close();
        if (direct != null) {
            direct.close();
        }
    }

    @Override
    public boolean isDisposed() {
        return staged.isClosing();
    }

    /**
     * Completes once the staging buffers, events and streams are released, this side's device grants revoked and
     * the peer's windows unmapped.
     */
    public Mono<Void> onClose() {
        return Mono.when(staged.onClose(), ipc.onClose());
    }
}
