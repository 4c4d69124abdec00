package dev.rivulet.gpu.direct;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Transport;
import dev.rivulet.core.error.ProviderException;
import dev.rivulet.core.error.TransportUnavailableException;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.core.spi.Availability;
import dev.rivulet.core.spi.DeviceMemoryRegistrar;
import dev.rivulet.gpu.DeviceBuffer;
import dev.rivulet.gpu.DeviceMemory;
import dev.rivulet.gpu.DeviceSlice;
import dev.rivulet.gpu.cuda.CudaMemory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Puts and gets of device memory handed to the provider as they are (GPUDirect RDMA): each device buffer is
 * registered once through the transport's {@link DeviceMemoryRegistrar} (libfabric's {@code FI_HMEM_CUDA}), and
 * its slices go to {@code Endpoint.put}/{@code get} like any registered memory, in pieces of at most the transport's
 * largest RMA.
 *
 * <p>Only where a libfabric provider reports {@code FI_HMEM} and accepts the registration ({@link #probe}); a
 * libfabric built without CUDA (Debian 12's 1.17) does neither, and every transfer is staged there. This path has
 * been compiled but not yet run on a CUDA-enabled libfabric.
 */
public final class DirectPath implements AutoCloseable {

    private static final long PROBE_BYTES = 64 << 10;

    private final DeviceMemoryRegistrar registrar;
    private final Endpoint endpoint;
    private final CudaMemory memory;
    private final Map<DeviceBuffer, Mono<MemoryRegion>> registrations = new ConcurrentHashMap<>();

    private DirectPath(DeviceMemoryRegistrar registrar, Endpoint endpoint, CudaMemory memory) {
        this.registrar = registrar;
        this.endpoint = endpoint;
        this.memory = memory;
    }

    /**
     * Whether device memory of {@code memory} can go to {@code transport}'s provider directly, and when not, why.
     * Never throws. Where it may work it registers a small device allocation to find out (blocking).
     */
    public static Availability probe(Transport transport, DeviceMemory memory) {
        if (!(memory instanceof CudaMemory cuda)) {
            return Availability.no(memory.kind() + " memory cannot be registered with a network provider");
        }
        DeviceMemoryRegistrar registrar = transport.extension(DeviceMemoryRegistrar.class).orElse(null);
        if (registrar == null) {
            return Availability.no(transport.name() + " moves host memory only");
        }
        try {
            return probe(transport, registrar, cuda);
        } catch (RuntimeException | LinkageError e) {
            return Availability.no("probing device memory registration failed: " + e);
        }
    }

    private static Availability probe(Transport transport, DeviceMemoryRegistrar registrar, CudaMemory memory) {
        Availability support = registrar.support();
        // Ask the provider even when it did not report FI_HMEM: its answer (FI_ENOSYS from a libfabric built without
        // CUDA) is the real reason, and an acceptance without FI_HMEM proves nothing.
        DeviceBuffer probe = memory.allocate(PROBE_BYTES);
        try {
            ProviderException refused = registrar.probeCuda(probe.address(), PROBE_BYTES, memory.device());
            if (refused != null) {
                return Availability.no("registration of CUDA memory refused by " + transport.name() + ": "
                        + refused.nativeMessage() + " (" + refused.nativeCode() + ")"
                        + (support.available() ? "" : "; " + support.reason()));
            }
            return support;
        } finally {
            probe.close();
        }
    }

    /** The direct path of {@code endpoint}; only after {@link #probe} said it is available. */
    public static DirectPath open(Transport transport, Endpoint endpoint, DeviceMemory memory) {
        DeviceMemoryRegistrar registrar = transport.extension(DeviceMemoryRegistrar.class).orElseThrow(
                () -> new TransportUnavailableException(transport.name() + " moves host memory only"));
        return new DirectPath(registrar, endpoint, (CudaMemory) memory);
    }

    /** Writes {@code source} into {@code target}, in pieces of at most the transport's largest RMA. */
    public Mono<Void> put(DeviceSlice source, RemoteMemory target) {
        long max = endpoint.capabilities().maxRmaSize();
        return registration(source.buffer()).flatMap(region -> Flux.range(0, pieces(source.length(), max))
                .concatMap(i -> {
                    long off = i * max;
                    long len = Math.min(max, source.length() - off);
                    return endpoint.put(region.slice(source.offset() + off, len), target.slice(off, len));
                })
                .then());
    }

    /** Reads {@code source} into {@code target}. */
    public Mono<Void> get(RemoteMemory source, DeviceSlice target) {
        long max = endpoint.capabilities().maxRmaSize();
        return registration(target.buffer()).flatMap(region -> Flux.range(0, pieces(target.length(), max))
                .concatMap(i -> {
                    long off = i * max;
                    long len = Math.min(max, target.length() - off);
                    return endpoint.get(source.slice(off, len), region.slice(target.offset() + off, len));
                })
                .then());
    }

    private static int pieces(long length, long max) {
        return (int) Math.max(1, (length + max - 1) / max);
    }

    /**
     * The buffer's registration, made once on a thread that may block; it is closed before the buffer is freed
     * (the free waits until the provider let go of it).
     */
    private Mono<MemoryRegion> registration(DeviceBuffer buffer) {
        return registrations.computeIfAbsent(buffer, b -> Mono.fromCallable(() -> {
                    MemoryRegion r = registrar.registerCuda(b.address(), b.length(), memory.device());
                    b.beforeFree(() -> {
                        registrations.remove(b);
                        r.close();
                        return r.onClose();
                    });
                    return r;
                })
                .subscribeOn(Schedulers.boundedElastic())
                .doOnError(e -> registrations.remove(b))
                .cache());
    }

    /** Closes the registrations made so far (each deregisters once its operations in flight are done). */
    @Override
    public void close() {
        for (Mono<MemoryRegion> m : List.copyOf(registrations.values())) {
            m.subscribe(MemoryRegion::close, e -> { });
        }
        registrations.clear();
    }
}
