package dev.rivulet.gpu;

import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.gpu.host.HostMemoryStandIn;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.lang.foreign.Arena;

import static dev.rivulet.gpu.TransferRig.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each transfer's own chunk size, end to end over {@code local} with the host stand-in: small transfers in enough
 * pieces to overlap, messages in chunks of at most 1 MiB, puts and gets in staging buffers larger than 1 MiB.
 */
class AdaptiveChunkingTest {

    private HostMemoryStandIn senderMemory;
    private HostMemoryStandIn receiverMemory;
    private TransferRig rig;

    @BeforeEach
    void setUp() {
        senderMemory = HostMemoryStandIn.create();
        receiverMemory = HostMemoryStandIn.create();
    }

    @AfterEach
    void tearDown() {
        if (rig != null) {
            rig.close();
        }
        senderMemory.close();
        receiverMemory.close();
    }

    private TransferRig rig(DeviceTransferConfig config) {
        rig = TransferRig.open(TestTransport.LOCAL, senderMemory, receiverMemory, config);
        return rig;
    }

    @Test
    void aOneMebibyteMessageGoesInFourPiecesOf256KiB() {
        TransferRig r = rig(DeviceTransferConfig.defaults().chunkSize(16 << 20).stagingBuffers(4));
        long size = 1 << 20;
        DeviceBuffer src = r.source(size, 1);
        DeviceBuffer dst = r.destination(size);
        long before = senderMemory.metrics().copies(CopyDirection.TO_HOST);

        Mono.when(r.rx.receiveInto(dst.slice()), r.tx.send(src.slice())).block(TIMEOUT);

        r.assertReceived(dst.slice(), 1);
        assertThat(senderMemory.metrics().copies(CopyDirection.TO_HOST) - before).isEqualTo(4);
        assertThat(receiverMemory.metrics().copies(CopyDirection.TO_DEVICE)).isEqualTo(4);
    }

    @Test
    void aLargeMessageGoesInChunksOfOneMebibyteWhateverTheLargestChunk() {
        TransferRig r = rig(DeviceTransferConfig.defaults().chunkSize(16 << 20).stagingBuffers(2));
        long size = (12L << 20) + 5;
        DeviceBuffer src = r.source(size, 2);
        DeviceBuffer dst = r.destination(size);
        long before = senderMemory.metrics().copies(CopyDirection.TO_HOST);

        Mono.when(r.rx.receiveInto(dst.slice()), r.tx.send(src.slice())).block(TIMEOUT);

        r.assertReceived(dst.slice(), 2);
        assertThat(senderMemory.metrics().copies(CopyDirection.TO_HOST) - before).isEqualTo(13);
    }

    @Test
    void putsAndGetsMoveChunksLargerThanOneMebibyte() {
        TransferRig r = rig(DeviceTransferConfig.defaults().chunkSize(4 << 20).stagingBuffers(2)
                .paths(PathSelection.STAGED));
        long size = (24L << 20) + 3; // 7 chunks of 4 MiB, the last one 3 bytes
        DeviceBuffer src = r.source(size, 3);
        DeviceBuffer back = r.track(senderMemory.allocate(size));
        try (Arena arena = Arena.ofShared()) {
            MemoryRegion window = r.serverTransport.memory().register(arena.allocate(size, 4096),
                    Access.REMOTE_READ, Access.REMOTE_WRITE);
            Grant grant = r.pair.server().grant(window.slice(), Access.REMOTE_READ, Access.REMOTE_WRITE);
            long toHost = senderMemory.metrics().copies(CopyDirection.TO_HOST);
            long toDevice = senderMemory.metrics().copies(CopyDirection.TO_DEVICE);

            r.tx.put(src.slice(), grant.remote()).then(r.tx.get(grant.remote(), back.slice())).block(TIMEOUT);

            assertThat(senderMemory.metrics().copies(CopyDirection.TO_HOST) - toHost).isEqualTo(7);
            assertThat(senderMemory.metrics().copies(CopyDirection.TO_DEVICE) - toDevice).isEqualTo(7);
            TransferRig.assertPattern(r.txCopies, back.slice(), 3);
            grant.close();
            window.close();
            window.onClose().block(TIMEOUT);
        }
    }
}
