package dev.rivulet.gpu;

import dev.rivulet.gpu.host.HostMemoryStandIn;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

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
        assertThat(sendCountingCopies(r, 1 << 20, 1)).isEqualTo(4);
        assertThat(receiverMemory.metrics().copies(CopyDirection.TO_DEVICE)).isEqualTo(4);
    }

    @Test
    void aLargeMessageGoesInChunksOfOneMebibyteWhateverTheLargestChunk() {
        TransferRig r = rig(DeviceTransferConfig.defaults().chunkSize(16 << 20).stagingBuffers(2));
        assertThat(sendCountingCopies(r, (12L << 20) + 5, 2)).isEqualTo(13);
    }

    @Test
    void putsAndGetsMoveChunksLargerThanOneMebibyte() {
        TransferRig r = rig(DeviceTransferConfig.defaults().chunkSize(4 << 20).stagingBuffers(2)
                .paths(PathSelection.STAGED));
        long size = (24L << 20) + 3; // 7 chunks of 4 MiB, the last one 3 bytes
        DeviceBuffer src = r.source(size, 3);
        DeviceBuffer back = r.track(senderMemory.allocate(size));
        long toHost = senderMemory.metrics().copies(CopyDirection.TO_HOST);
        long toDevice = senderMemory.metrics().copies(CopyDirection.TO_DEVICE);

        r.putAndGetBack(src.slice(), back.slice());

        assertThat(senderMemory.metrics().copies(CopyDirection.TO_HOST) - toHost).isEqualTo(7);
        assertThat(senderMemory.metrics().copies(CopyDirection.TO_DEVICE) - toDevice).isEqualTo(7);
        TransferRig.assertPattern(r.txCopies, back.slice(), 3);
    }

    /** Sends {@code size} bytes of {@code seed}'s pattern, checks them on arrival, and returns the sender's copies. */
    private long sendCountingCopies(TransferRig r, long size, long seed) {
        DeviceBuffer src = r.source(size, seed);
        DeviceBuffer dst = r.destination(size);
        long before = senderMemory.metrics().copies(CopyDirection.TO_HOST);
        Mono.when(r.rx.receiveInto(dst.slice()), r.tx.send(src.slice())).block(TIMEOUT);
        r.assertReceived(dst.slice(), seed);
        return senderMemory.metrics().copies(CopyDirection.TO_HOST) - before;
    }
}
