package dev.rivulet.gpu;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.Transports;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.LeakDetector;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RegisteredSlice;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.gpu.bench.DeviceContent;
import dev.rivulet.gpu.bench.GpuStagingBench;
import dev.rivulet.gpu.bench.HostDeviceCopies;
import dev.rivulet.gpu.cuda.CudaMemory;
import dev.rivulet.gpu.host.HostMemoryStandIn;
import dev.rivulet.gpu.ipc.DeviceGrant;
import dev.rivulet.gpu.ipc.DeviceWindow;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The examples of docs/gpu.md, run with whichever device memory this machine has. */
class GpuDocsExamplesTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private Transport transport;
    private DeviceMemory memory;

    @BeforeEach
    void setUp() {
        LeakDetector.enable();
        LeakDetector.reset();
        transport = Transports.open("local", TransportConfig.defaults());
        // snippet:begin choose-memory
        DeviceMemory memory = CudaMemory.availability().available()
                ? CudaMemory.open(0)                 // a GPU: cudaMalloc, cudaMemcpyAsync, cudaHostRegister
                : HostMemoryStandIn.create();        // none: host memory behind the same asynchronous interface
        // snippet:end
        this.memory = memory;
    }

    @AfterEach
    void tearDown() {
        transport.disposeLater().block(TIMEOUT);
        LeakDetector.awaitNoLeaks(Duration.ofSeconds(10));
        memory.close();
        LeakDetector.disable();
    }

    @Test
    void sendReceivePutGet() {
        Connection connection = Connection.open(transport, "local://gpu-docs");
        Endpoint endpoint = connection.endpoint();
        Endpoint peerEndpoint = connection.peer();
        long bytes = 3 << 20;
        try (Arena arena = Arena.ofShared(); HostDeviceCopies copies = new HostDeviceCopies(transport, memory,
                1 << 20)) {
            DeviceBuffer tensor = memory.allocate(bytes);
            DeviceBuffer landing = memory.allocate(bytes);
            MemorySegment pattern = arena.allocate(bytes, 64);
            GpuStagingBench.fill(pattern, 1);
            copies.upload(pattern, tensor.slice());
            MemoryRegion region = transport.memory().register(arena.allocate(bytes, 4096), Access.REMOTE_WRITE,
                    Access.REMOTE_READ);
            Grant grant = peerEndpoint.grant(region.slice(), Access.REMOTE_WRITE, Access.REMOTE_READ);
            RemoteMemory window = grant.remote();

            // snippet:begin basics
            DeviceTransfers gpu = DeviceTransfers.open(transport, endpoint, memory,
                    DeviceTransferConfig.defaults()).block();
            DeviceTransfers peer = DeviceTransfers.open(transport, peerEndpoint, memory,
                    DeviceTransferConfig.defaults()).block();

            // A message from device memory to device memory: chunks staged through pinned, registered buffers.
            Mono<DeviceSlice> landed = peer.receiveInto(landing.slice());
            Mono.when(landed, gpu.send(tensor.slice())).block();

            // One-sided: device memory into a peer's granted window and back.
            gpu.put(tensor.slice(), window).then(gpu.get(window, landing.slice())).block();

            DeviceTransferCapabilities caps = gpu.capabilities();   // which path puts and gets took, and why
            // snippet:end

            MemorySegment back = arena.allocate(bytes, 64);
            copies.download(landing.slice(), back);
            assertThat(back.mismatch(pattern)).isEqualTo(-1L);
            assertThat(region.segment().mismatch(pattern)).isEqualTo(-1L);
            assertThat(caps.messagePath()).isEqualTo(TransferPath.STAGED);
            gpu.dispose();
            peer.dispose();
            Mono.when(gpu.onClose(), peer.onClose()).block(TIMEOUT);
            grant.close();
            region.close();
            tensor.close();
            landing.close();
        } finally {
            connection.close();
        }
    }

    @Test
    void deviceMemoryBetweenProcessesOfOneHost() {
        Connection connection = Connection.open(transport, "local://gpu-ipc-docs");
        Endpoint endpoint = connection.endpoint();
        Endpoint peerEndpoint = connection.peer();
        // The stand-in shares memory between processes only when asked to (its buffers are then files in /dev/shm).
        DeviceMemory shared = memory instanceof CudaMemory ? memory : HostMemoryStandIn.shareable();
        long bytes = 1 << 20;
        try {
            DeviceTransfers gpu = DeviceTransfers.open(transport, endpoint, shared, DeviceTransferConfig.defaults())
                    .block(TIMEOUT);
            DeviceTransfers peer = DeviceTransfers.open(transport, peerEndpoint, shared,
                    DeviceTransferConfig.defaults()).block(TIMEOUT);
            DeviceBuffer kvCache = shared.allocate(bytes);
            DeviceBuffer mine = shared.allocate(bytes);
            DeviceContent.fill(shared, transport.memory(), kvCache, 7);

            // snippet:begin ipc
            // In the process holding the KV cache: the peer may map the whole buffer, to read and write it.
            DeviceGrant grant = gpu.grant(kvCache, Access.REMOTE_READ, Access.REMOTE_WRITE);
            endpoint.send(grant.remote().toBytes()).subscribe();     // goes once the peer asks for a message

            // In the peer, a process of the same host: its gets and puts are device-to-device copies.
            DeviceWindow window = DeviceWindow.fromBytes(peerEndpoint.receive().asByteArray().blockFirst());
            peer.get(window, mine.slice()).block();

            // Taken back: complete once the peer has unmapped the buffer (or is gone).
            grant.revoke().block();
            // snippet:end

            assertThat(DeviceContent.checksum(shared, transport.memory(), mine))
                    .isEqualTo(DeviceContent.checksum(shared, transport.memory(), kvCache));
            assertThat(gpu.capabilities().ipcAvailable()).isTrue();
            assertThatThrownBy(() -> peer.put(mine.slice(), window).block(TIMEOUT)).as("a put after the revocation")
                    .isInstanceOf(RemoteAccessException.class);
            gpu.dispose();
            peer.dispose();
            Mono.when(gpu.onClose(), peer.onClose()).block(TIMEOUT);
            kvCache.close();
            mine.close();
        } finally {
            connection.close();
            if (shared != memory) {
                shared.close();
            }
        }
    }

    /** A client endpoint connected to a server of the same transport, and the server's side of the connection. */
    record Connection(RivuletServer.BoundServer server, Endpoint endpoint, Endpoint peer) {

        static Connection open(Transport transport, String address) {
            AtomicReference<Endpoint> accepted = new AtomicReference<>();
            RivuletServer.BoundServer server = RivuletServer.create().runOn(transport).bindAddress(address)
                    .handle(ep -> {
                        accepted.set(ep);
                        return ep.onClose();
                    })
                    .bindNow();
            Endpoint endpoint = RivuletClient.create().runOn(transport).remoteAddress(address).connectNow();
            while (accepted.get() == null) {
                Thread.onSpinWait();
            }
            return new Connection(server, endpoint, accepted.get());
        }

        void close() {
            endpoint.dispose();
            server.disposeGracefully(Duration.ofSeconds(5)).block(TIMEOUT);
        }
    }

    /** A range of a tensor to put into a window the requester granted: offset, length, then the window's handle. */
    record TensorRange(long offset, int length, RemoteMemory target) {
        byte[] encode() {
            byte[] handle = target.toBytes();
            return ByteBuffer.allocate(12 + handle.length).putLong(offset).putInt(length).put(handle).array();
        }

        static TensorRange decode(byte[] b) {
            ByteBuffer in = ByteBuffer.wrap(b);
            long offset = in.getLong();
            int length = in.getInt();
            byte[] handle = new byte[in.remaining()];
            in.get(handle);
            return new TensorRange(offset, length, RemoteMemory.fromBytes(handle));
        }
    }

    // snippet:begin tensor-body
    /**
     * The body of {@code GET /tensors/{id}} on an HTTP front without a GPU: the tensor, window by window, put by the
     * GPU node straight from its device memory into registered memory here, each window granted to that node alone.
     */
    static Flux<ByteBuffer> tensorBody(Endpoint gpuNode, MemoryRegion windows, long tensorLength) {
        int window = (int) windows.length();
        return Flux.range(0, (int) ((tensorLength + window - 1) / window))
                .concatMap(i -> {
                    long offset = (long) i * window;
                    int length = (int) Math.min(window, tensorLength - offset);
                    RegisteredSlice target = windows.slice(0, length);
                    return Mono.using(() -> gpuNode.grant(target, Access.REMOTE_WRITE),   // closed at the end:
                            grant -> gpuNode.send(new TensorRange(offset, length, grant.remote()).encode())
                                    .then(gpuNode.receive().asByteArray().next())  // the node's "done"
                                    .map(done -> ByteBuffer.wrap(target.segment().toArray(ValueLayout.JAVA_BYTE))),
                            Grant::close);                                        // the window is private again
                });
    }
    // snippet:end

    @Test
    void streamingATensorOutOfDeviceMemory() {
        long tensorLength = (5 << 20) + 123;
        String address = "local://gpu-node";
        try (Arena arena = Arena.ofShared(); HostDeviceCopies copies = new HostDeviceCopies(transport, memory,
                1 << 20)) {
            DeviceBuffer tensor = memory.allocate(tensorLength);
            MemorySegment pattern = arena.allocate(tensorLength, 64);
            GpuStagingBench.fill(pattern, 7);
            copies.upload(pattern, tensor.slice());

            // snippet:begin gpu-node
            RivuletServer.BoundServer gpuNode = RivuletServer.create().runOn(transport).bindAddress(address)
                    .handle(peer -> DeviceTransfers.open(transport, peer, memory, DeviceTransferConfig.defaults())
                            .flatMap(gpu -> peer.receive().asByteArray()
                                    .map(TensorRange::decode)
                                    .concatMap(r -> gpu.put(tensor.slice(r.offset(), r.length()), r.target())
                                            .then(peer.send(new byte[]{1})))
                                    .then()))
                    .bindNow();
            // snippet:end

            Endpoint front = RivuletClient.create().runOn(transport).remoteAddress(address).connectNow();
            MemoryRegion windows = transport.memory().register(arena.allocate(1 << 20, 4096), Access.REMOTE_WRITE);
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            tensorBody(front, windows, tensorLength).doOnNext(b -> body.write(b.array(), 0, b.remaining()))
                    .blockLast(TIMEOUT);

            assertThat(MemorySegment.ofArray(body.toByteArray()).mismatch(pattern)).isEqualTo(-1L);
            assertThat(front.memory().grantCount()).as("every window grant closed").isZero();
            front.dispose();
            gpuNode.disposeGracefully(Duration.ofSeconds(5)).block(TIMEOUT);
            windows.close();
            tensor.close();
        }
    }
}
