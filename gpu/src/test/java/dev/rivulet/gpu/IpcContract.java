package dev.rivulet.gpu;

import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.memory.Access;
import dev.rivulet.gpu.bench.DeviceContent;
import dev.rivulet.gpu.bench.IpcPeer;
import dev.rivulet.gpu.bench.IpcPeer.IpcPeerException;
import dev.rivulet.gpu.ipc.DeviceGrant;
import dev.rivulet.gpu.ipc.DeviceWindow;
import dev.rivulet.gpu.metrics.GpuMetrics.Outcome;
import dev.rivulet.gpu.metrics.GpuMetrics.TransferOp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Disposable;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static dev.rivulet.gpu.StagedPipelineContract.awaitTrue;
import static dev.rivulet.gpu.TransferRig.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Device memory granted between processes of one host (CUDA IPC, or the stand-in's shared files): within one process
 * over {@code local}, where the exporter's buffer is used as it is, and between two processes over {@code shm://},
 * where the other JVM ({@link dev.rivulet.gpu.bench.IpcPeerProcess}) maps it. Puts and gets by checksum, rights,
 * bounds, forged windows, revocation, a peer killed mid-use, and cancellation leaving nothing behind.
 */
abstract class IpcContract {

    static final Duration CALL = Duration.ofMinutes(1);

    private final List<AutoCloseable> closeables = new ArrayList<>();
    DeviceMemory importerMemory;
    DeviceMemory exporterMemory;

    /** A new memory of the kind under test (skips the test where it cannot be used). */
    abstract DeviceMemory newMemory();

    /** The other process's name of that kind ({@code cuda}, {@code standin}). */
    abstract String peerKind();

    @BeforeEach
    void setUp() {
        StepVerifier.setDefaultTimeout(TIMEOUT);
        importerMemory = newMemory();
        exporterMemory = newMemory();
    }

    @AfterEach
    void tearDown() throws Exception {
        if (importerMemory == null || exporterMemory == null) {
            return;
        }
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
        for (DeviceMemory m : List.of(importerMemory, exporterMemory)) {
            awaitTrue(() -> m.stats().buffers() == 0, "device buffers freed");
            assertThat(m.stats().events()).as("events").isZero();
            assertThat(m.stats().streams()).as("streams").isZero();
            m.close();
        }
    }

    private TransferRig localRig() {
        TransferRig r = TransferRig.open(TestTransport.LOCAL, importerMemory, exporterMemory,
                StagedPipelineContract.config(2));
        closeables.add(r);
        return r;
    }

    private DeviceBuffer filled(DeviceMemory m, DeviceTransfers t, long size, long seed) {
        DeviceBuffer b = m.allocate(size);
        closeables.add(b);
        DeviceContent.fill(m, t.endpoint().memory(), b, seed);
        return b;
    }

    private static long checksum(DeviceTransfers t, DeviceBuffer b) {
        return DeviceContent.checksum(t.memory(), t.endpoint().memory(), b);
    }

    // ---- one process over local ----

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(longs = {1 << 10, 1 << 20, (3 << 20) + 7})
    void putAndGetInOneProcessByChecksum(long size) {
        TransferRig r = localRig();
        DeviceBuffer target = filled(exporterMemory, r.rx, size, 1);
        DeviceBuffer source = filled(importerMemory, r.tx, size, 2);
        DeviceBuffer back = filled(importerMemory, r.tx, size, 3);
        try (DeviceGrant g = r.rx.grant(target, Access.REMOTE_WRITE, Access.REMOTE_READ)) {
            DeviceWindow w = DeviceWindow.fromBytes(g.remote().toBytes());

            StepVerifier.create(r.tx.put(source.slice(), w)).verifyComplete();
            assertThat(checksum(r.rx, target)).isEqualTo(DeviceContent.expected(size, 2));
            DeviceContent.fill(exporterMemory, r.rx.endpoint().memory(), target, 4);
            StepVerifier.create(r.tx.get(w, back.slice())).verifyComplete();
            assertThat(checksum(r.tx, back)).isEqualTo(DeviceContent.expected(size, 4));
            StepVerifier.create(g.revoke()).verifyComplete();
        }
        assertThat(importerMemory.metrics().transfers(TransferOp.PUT, TransferPath.IPC, Outcome.SUCCESS)).isEqualTo(1);
        assertThat(r.tx.capabilities().ipcAvailable()).isTrue();
    }

    @Test
    void aWindowSliceReachesOnlyItsRange() {
        TransferRig r = localRig();
        DeviceBuffer target = filled(exporterMemory, r.rx, 3 << 10, 1);
        DeviceBuffer source = filled(importerMemory, r.tx, 1 << 10, 2);
        DeviceGrant g = r.rx.grant(target, Access.REMOTE_WRITE, Access.REMOTE_READ);
        DeviceWindow middle = g.remote().slice(1 << 10, 1 << 10);

        StepVerifier.create(r.tx.put(source.slice(), middle)).verifyComplete();

        DeviceBuffer back = filled(importerMemory, r.tx, 1 << 10, 9);
        StepVerifier.create(r.tx.get(middle, back.slice())).verifyComplete();
        assertThat(checksum(r.tx, back)).isEqualTo(DeviceContent.expected(1 << 10, 2));
        assertThatThrownBy(() -> middle.slice(512, 1 << 10)).isInstanceOf(InvalidRequestException.class);
        g.revoke().block(TIMEOUT);
    }

    @Test
    void rightsAreChecked() {
        TransferRig r = localRig();
        DeviceBuffer target = filled(exporterMemory, r.rx, 1 << 10, 1);
        DeviceBuffer local = filled(importerMemory, r.tx, 1 << 10, 2);
        DeviceGrant readOnly = r.rx.grant(target, Access.REMOTE_READ);
        DeviceGrant writeOnly = r.rx.grant(target, Access.REMOTE_WRITE);

        StepVerifier.create(r.tx.put(local.slice(), readOnly.remote())).verifyError(RemoteAccessException.class);
        StepVerifier.create(r.tx.get(writeOnly.remote(), local.slice())).verifyError(RemoteAccessException.class);
        assertThatThrownBy(() -> r.rx.grant(target, Access.REMOTE_ATOMIC)).isInstanceOf(InvalidRequestException.class);
        StepVerifier.create(readOnly.revoke().and(writeOnly.revoke())).verifyComplete();
    }

    @Test
    void aWindowWithAWiderRangeOrMoreRightsThanGrantedIsRefused() {
        TransferRig r = localRig();
        DeviceBuffer target = filled(exporterMemory, r.rx, 1 << 10, 1);
        DeviceBuffer local = filled(importerMemory, r.tx, 1 << 10, 2);
        DeviceBuffer longer = filled(importerMemory, r.tx, 2 << 10, 2);
        DeviceGrant g = r.rx.grant(target, Access.REMOTE_READ);
        DeviceWindow w = g.remote();
        DeviceWindow moreRights = new DeviceWindow(w.host(), w.kind(), w.token(), w.handle(), w.allocation(),
                w.offset(), w.length(), java.util.Set.of(Access.REMOTE_READ, Access.REMOTE_WRITE), w.control());

        StepVerifier.create(r.tx.get(w, longer.slice())).verifyError(InvalidRequestException.class);
        StepVerifier.create(r.tx.get(w, local.slice())).verifyComplete();
        StepVerifier.create(r.tx.put(local.slice(), moreRights)).verifyError(RemoteAccessException.class);
        g.revoke().block(TIMEOUT);
    }

    @Test
    void forgedWindowsAreRefused() {
        TransferRig r = localRig();
        DeviceBuffer target = filled(exporterMemory, r.rx, 1 << 10, 1);
        DeviceBuffer local = filled(importerMemory, r.tx, 1 << 10, 2);
        DeviceGrant g = r.rx.grant(target, Access.REMOTE_WRITE, Access.REMOTE_READ);
        DeviceWindow w = g.remote();
        byte[] token = w.token();
        token[0] ^= 1;
        byte[] handle = w.handle();
        handle[handle.length - 1] ^= 1;
        DeviceWindow otherToken = new DeviceWindow(w.host(), w.kind(), token, w.handle(), w.allocation(), 0,
                w.length(), w.rights(), w.control());
        DeviceWindow otherHandle = new DeviceWindow(w.host(), w.kind(), w.token(), handle, w.allocation(), 0,
                w.length(), w.rights(), w.control());
        DeviceWindow otherControl = new DeviceWindow(w.host(), w.kind(), w.token(), w.handle(), w.allocation(), 0,
                w.length(), w.rights(), new dev.rivulet.core.memory.RemoteMemory(w.control().address(),
                w.control().length(), w.control().key() ^ 0x5a5a, w.control().providerBytes()));
        DeviceWindow otherHost = new DeviceWindow("boot:elsewhere", w.kind(), w.token(), w.handle(), w.allocation(),
                0, w.length(), w.rights(), w.control());

        StepVerifier.create(r.tx.put(local.slice(), otherToken)).verifyError(RemoteAccessException.class);
        StepVerifier.create(r.tx.put(local.slice(), otherHandle)).verifyError(RemoteAccessException.class);
        StepVerifier.create(r.tx.put(local.slice(), otherControl)).verifyError(RemoteAccessException.class);
        StepVerifier.create(r.tx.put(local.slice(), otherHost)).verifyError(InvalidRequestException.class);
        StepVerifier.create(r.tx.put(local.slice(), w)).verifyComplete();
        StepVerifier.create(g.revoke()).verifyComplete();
    }

    @Test
    void afterRevocationPutsFailAndTheBufferIsFreedOnClose() {
        TransferRig r = localRig();
        DeviceBuffer target = exporterMemory.allocate(1 << 20);
        DeviceBuffer local = filled(importerMemory, r.tx, 1 << 20, 2);
        DeviceGrant g = r.rx.grant(target, Access.REMOTE_WRITE);
        StepVerifier.create(r.tx.put(local.slice(), g.remote())).verifyComplete();
        DeviceWindow w = g.remote();
        target.close();
        assertThat(target.pins()).isEqualTo(1); // the grant's

        StepVerifier.create(g.revoke()).verifyComplete();

        StepVerifier.create(target.onFree()).verifyComplete();
        StepVerifier.create(r.tx.put(local.slice(), w)).verifyError(RemoteAccessException.class);
    }

    @Test
    void cancelledTransfersLeaveNoPinMappingOrEvent() {
        TransferRig r = localRig();
        DeviceBuffer target = filled(exporterMemory, r.rx, 16 << 20, 1);
        DeviceBuffer local = filled(importerMemory, r.tx, 16 << 20, 2);
        DeviceGrant g = r.rx.grant(target, Access.REMOTE_WRITE, Access.REMOTE_READ);
        for (int i = 0; i < 20; i++) {
            Disposable d = r.tx.put(local.slice(), g.remote()).subscribe();
            if (i % 2 == 0) {
                Thread.onSpinWait();
            }
            d.dispose();
        }
        StepVerifier.create(g.revoke()).verifyComplete();
        awaitTrue(() -> local.pins() == 0, "local buffer unpinned");
        assertThat(target.pins()).isZero();
    }

    @Test
    void grantsRevokeWhenTheEndpointCloses() {
        TransferRig r = localRig();
        DeviceBuffer target = filled(exporterMemory, r.rx, 1 << 10, 1);
        DeviceBuffer local = filled(importerMemory, r.tx, 1 << 10, 2);
        DeviceGrant g = r.rx.grant(target, Access.REMOTE_WRITE);
        StepVerifier.create(r.tx.put(local.slice(), g.remote())).verifyComplete();

        r.rx.endpoint().dispose();

        StepVerifier.create(g.revoke()).verifyComplete();
        assertThat(target.pins()).isZero();
    }

    // ---- two processes over shm:// ----

    private IpcPeer peer() throws Exception {
        IpcPeer p = IpcPeer.start(peerKind(), false, CALL);
        closeables.add(p);
        return p;
    }

    private DeviceTransfers exporter(IpcPeer p) {
        DeviceTransfers t = DeviceTransfers.open(p.transport(), p.endpoint(), exporterMemory,
                DeviceTransferConfig.defaults()).block(TIMEOUT);
        closeables.add(() -> {
            t.dispose();
            t.onClose().block(TIMEOUT);
        });
        return t;
    }

    @Test
    void putAndGetBetweenTwoProcessesByChecksum() throws Exception {
        IpcPeer p = peer();
        DeviceTransfers t = exporter(p);
        for (long size : new long[] {1 << 10, 1 << 20, (3 << 20) + 7, 64 << 20}) {
            DeviceBuffer target = filled(exporterMemory, t, size, 1);
            DeviceGrant g = t.grant(target, Access.REMOTE_WRITE, Access.REMOTE_READ);
            String w = IpcPeer.hex(g.remote());
            p.call("alloc x " + size, CALL);
            p.call("fill x " + (size + 5), CALL);

            p.call("put x " + w, CALL);
            assertThat(checksum(t, target)).as("put of %d bytes", size).isEqualTo(DeviceContent.expected(size,
                    size + 5));

            DeviceContent.fill(exporterMemory, t.endpoint().memory(), target, size + 6);
            p.call("get " + w + " x", CALL);
            assertThat(Long.parseUnsignedLong(p.call("crc x", CALL), 16)).as("get of %d bytes", size)
                    .isEqualTo(DeviceContent.expected(size, size + 6));
            p.call("free x", CALL);
            g.revoke().block(TIMEOUT);
        }
        assertThat(p.call("stats", CALL)).startsWith("0 ");
    }

    @Test
    void theOtherProcessIsRefusedWhatWasNotGranted() throws Exception {
        IpcPeer p = peer();
        DeviceTransfers t = exporter(p);
        DeviceBuffer target = filled(exporterMemory, t, 4 << 10, 1);
        DeviceGrant readOnly = t.grant(target, Access.REMOTE_READ);
        DeviceWindow w = readOnly.remote();
        byte[] token = w.token();
        token[3] ^= 1;
        DeviceWindow forged = new DeviceWindow(w.host(), w.kind(), token, w.handle(), w.allocation(), 0, w.length(),
                w.rights(), w.control());
        p.call("alloc x " + (8 << 10), CALL);
        p.call("alloc y " + (4 << 10), CALL);

        assertPeerFails(p, "put y " + IpcPeer.hex(w), "RemoteAccessException");
        assertPeerFails(p, "get " + IpcPeer.hex(w) + " x", "InvalidRequestException");
        assertPeerFails(p, "get " + IpcPeer.hex(forged) + " y", "RemoteAccessException");
        p.call("get " + IpcPeer.hex(w) + " y", CALL);
        StepVerifier.create(readOnly.revoke()).verifyComplete();
        assertPeerFails(p, "get " + IpcPeer.hex(w) + " y", "RemoteAccessException");
    }

    @Test
    void revocationClosesTheOtherProcesssMapping() throws Exception {
        IpcPeer p = peer();
        DeviceTransfers t = exporter(p);
        DeviceBuffer target = filled(exporterMemory, t, 1 << 20, 1);
        DeviceGrant g = t.grant(target, Access.REMOTE_WRITE);
        String w = IpcPeer.hex(g.remote());
        p.call("alloc x " + (1 << 20), CALL);
        p.call("put x " + w, CALL);

        // Completes only once the other process has unmapped the window (the control word counts its mapping).
        StepVerifier.create(g.revoke()).verifyComplete();

        assertPeerFails(p, "put x " + w, "RemoteAccessException");
        assertThat(target.pins()).isZero();
    }

    @Test
    void aKilledPeerReleasesTheGrantAndTheBuffer() throws Exception {
        IpcPeer p = peer();
        DeviceTransfers t = exporter(p);
        DeviceBuffer target = exporterMemory.allocate(16 << 20);
        DeviceGrant g = t.grant(target, Access.REMOTE_WRITE);
        p.call("alloc x " + (16 << 20), CALL);
        p.call("loop x " + IpcPeer.hex(g.remote()), CALL);
        awaitTrue(() -> {
            try {
                return Long.parseLong(p.call("looped", CALL)) > 3;
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }, "puts under way");

        p.kill();
        target.close();

        StepVerifier.create(g.revoke()).verifyComplete();
        StepVerifier.create(target.onFree()).verifyComplete();
    }

    private static void assertPeerFails(IpcPeer p, String command, String exception) {
        assertThatThrownBy(() -> p.call(command, CALL)).isInstanceOf(IpcPeerException.class)
                .satisfies(e -> assertThat(((IpcPeerException) e).type()).isEqualTo(exception));
    }
}
