package dev.rivulet.gpu;

import dev.rivulet.gpu.host.HostMemoryStandIn;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.lang.management.ManagementFactory;

import static dev.rivulet.gpu.TransferRig.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A chunk of the staged path allocates nothing on the heap at steady state, send and receive side together, over
 * {@code local} with the host stand-in. A message has a fixed cost (its {@code Mono}s, header, stream), so the test
 * compares messages of few and of many chunks: what the many cost beyond the few, per chunk, is the per-chunk cost.
 * Allocation is counted over every thread ({@code getTotalThreadAllocatedBytes}); the smallest of several rounds is
 * taken, so that a background thread's occasional allocation cannot fail the test, while a per-chunk allocation of
 * even one small object (16 bytes or more) shows in every round.
 */
class HeapPerChunkTest {

    private static final int CHUNK = 256 << 10;
    private static final long FEW = 4L * CHUNK;
    private static final long MANY = 68L * CHUNK;
    private static final int MESSAGES = 10;

    @Test
    void aChunkAllocatesNothingAtSteadyState() {
        try (HostMemoryStandIn sender = HostMemoryStandIn.create();
             HostMemoryStandIn receiver = HostMemoryStandIn.create();
             TransferRig r = TransferRig.open(TestTransport.LOCAL, sender, receiver,
                     DeviceTransferConfig.defaults().chunkSize(CHUNK).stagingBuffers(4))) {
            DeviceBuffer src = r.source(MANY, 7);
            DeviceBuffer dst = r.destination(MANY);
            for (int i = 0; i < 200; i++) { // compiled, pool slabs pinned, lending views made
                transfer(r, src, dst, FEW);
                transfer(r, src, dst, MANY);
            }
            double best = Double.MAX_VALUE;
            for (int round = 0; round < 7; round++) {
                long few = allocated(r, src, dst, FEW);
                long many = allocated(r, src, dst, MANY);
                best = Math.min(best, (double) (many - few) / (MESSAGES * ((MANY - FEW) / CHUNK)));
            }
            assertThat(best).as("heap bytes per chunk at steady state").isLessThan(8.0);
            r.assertReceived(dst.slice(), 7);
        }
    }

    private static long allocated(TransferRig r, DeviceBuffer src, DeviceBuffer dst, long size) {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getTotalThreadAllocatedBytes();
        for (int i = 0; i < MESSAGES; i++) {
            transfer(r, src, dst, size);
        }
        return threads.getTotalThreadAllocatedBytes() - before;
    }

    private static void transfer(TransferRig r, DeviceBuffer src, DeviceBuffer dst, long size) {
        Mono.when(r.rx.receiveInto(dst.slice(0, size)), r.tx.send(src.slice(0, size))).block(TIMEOUT);
    }
}
