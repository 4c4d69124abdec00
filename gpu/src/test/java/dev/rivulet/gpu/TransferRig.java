package dev.rivulet.gpu;

import dev.rivulet.conformance.Pair;
import dev.rivulet.core.Transport;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.gpu.bench.GpuStagingBench;
import dev.rivulet.gpu.bench.HostDeviceCopies;
import reactor.core.publisher.Mono;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two transports, a connected endpoint pair, device transfers on both ends (the client sends, the server receives),
 * and plain copies to fill and read device memory on each side.
 */
final class TransferRig implements AutoCloseable {

    static final Duration TIMEOUT = Duration.ofSeconds(60);

    final Transport clientTransport;
    final Transport serverTransport;
    final Pair pair;
    final DeviceMemory senderMemory;
    final DeviceMemory receiverMemory;
    final DeviceTransfers tx;
    final DeviceTransfers rx;
    final HostDeviceCopies txCopies;
    final HostDeviceCopies rxCopies;
    private final List<DeviceBuffer> buffers = new ArrayList<>();

    private TransferRig(Transport clientTransport, Transport serverTransport, Pair pair, DeviceMemory senderMemory,
                        DeviceMemory receiverMemory, DeviceTransfers tx, DeviceTransfers rx) {
        this.clientTransport = clientTransport;
        this.serverTransport = serverTransport;
        this.pair = pair;
        this.senderMemory = senderMemory;
        this.receiverMemory = receiverMemory;
        this.tx = tx;
        this.rx = rx;
        this.txCopies = new HostDeviceCopies(clientTransport, senderMemory, 4 << 20);
        this.rxCopies = new HostDeviceCopies(serverTransport, receiverMemory, 4 << 20);
    }

    static TransferRig open(TestTransport kind, DeviceMemory senderMemory, DeviceMemory receiverMemory,
                            DeviceTransferConfig config) {
        Transport server = kind.open();
        Transport client = kind.open();
        Pair pair = Pair.connect(server, client, kind.bindAddress());
        DeviceTransfers tx = DeviceTransfers.open(client, pair.client(), senderMemory, config).block(TIMEOUT);
        DeviceTransfers rx = DeviceTransfers.open(server, pair.server(), receiverMemory, config).block(TIMEOUT);
        return new TransferRig(client, server, pair, senderMemory, receiverMemory, tx, rx);
    }

    /** A sender-side device buffer of {@code size} bytes holding the pattern of {@code seed}. */
    DeviceBuffer source(long size, long seed) {
        DeviceBuffer b = track(senderMemory.allocate(Math.max(1, size)));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment host = a.allocate(Math.max(1, size), 64);
            GpuStagingBench.fill(host, seed);
            txCopies.upload(host, b.slice());
        }
        return b;
    }

    /** A receiver-side device buffer of {@code size} bytes, zeroed. */
    DeviceBuffer destination(long size) {
        DeviceBuffer b = track(receiverMemory.allocate(Math.max(1, size)));
        try (Arena a = Arena.ofConfined()) {
            rxCopies.upload(a.allocate(Math.max(1, size), 64), b.slice());
        }
        return b;
    }

    DeviceBuffer track(DeviceBuffer b) {
        buffers.add(b);
        return b;
    }

    /**
     * Puts {@code source} into a window of registered memory on the server side, granted for the occasion, and gets
     * it back into {@code back} (both sender-side device memory), then closes the window.
     */
    void putAndGetBack(DeviceSlice source, DeviceSlice back) {
        try (Arena arena = Arena.ofShared()) {
            MemoryRegion window = serverTransport.memory().register(arena.allocate(source.length(), 4096),
                    Access.REMOTE_READ, Access.REMOTE_WRITE);
            Grant grant = pair.server().grant(window.slice(), Access.REMOTE_READ, Access.REMOTE_WRITE);
            tx.put(source, grant.remote()).then(tx.get(grant.remote(), back)).block(TIMEOUT);
            grant.close();
            window.close();
            window.onClose().block(TIMEOUT);
        }
    }

    /** Asserts that {@code slice} (receiver side) holds the first {@code slice.length()} bytes of {@code seed}'s pattern. */
    void assertReceived(DeviceSlice slice, long seed) {
        assertPattern(rxCopies, slice, seed);
    }

    static void assertPattern(HostDeviceCopies copies, DeviceSlice slice, long seed) {
        if (slice.length() == 0) {
            return;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment expected = a.allocate(slice.length(), 64);
            GpuStagingBench.fill(expected, seed);
            MemorySegment actual = a.allocate(slice.length(), 64);
            copies.download(slice, actual);
            assertThat(actual.mismatch(expected)).as("first differing byte of %d", slice.length()).isEqualTo(-1L);
        }
    }

    @Override
    public void close() {
        tx.dispose();
        rx.dispose();
        Mono.when(tx.onClose(), rx.onClose()).block(TIMEOUT);
        buffers.forEach(DeviceBuffer::close);
        txCopies.close();
        rxCopies.close();
        pair.close();
        Mono.when(clientTransport.disposeLater(), serverTransport.disposeLater()).block(TIMEOUT);
    }
}
