package dev.rivulet.rdma.fabric;

import dev.rivulet.conformance.Messages;
import dev.rivulet.conformance.Pair;
import dev.rivulet.core.EndpointStats;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.memory.Buffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One million messages of mixed sizes (small ones coalesced, every 5,000th above the eager size so it goes by
 * rendezvous) over libfabric tcp to a consumer that stalls now and then; every byte is checked, nothing may be
 * lost, the sender may never have more in flight than it was granted, and closing gives every registration back.
 * Bounded to about a minute on a 2-core machine.
 */
@Timeout(180)
class FabricSoakTest {

    private static final int[] SIZES = {8, 24, 64, 200, 512, 1500, 33, 4000};
    private static final int LARGE = 100 << 10;

    static int sizeOf(long seq) {
        return seq % 5_000 == 4_999 ? LARGE : SIZES[(int) (seq % SIZES.length)];
    }

    @Test
    void millionMixedMessagesToASlowConsumerLoseNothingAndLeakNothing() throws Exception {
        long first = soak(1_000_000);
        long warm = nativeResidentBytes();
        soak(100_000);
        long after = nativeResidentBytes();
        assertThat(first).isEqualTo(1_000_000);
        assertThat(after - warm).as("native memory growth after closing a second run (RSS outside the heap)")
                .isLessThan(96L << 20);
    }

    private long soak(long n) {
        TransportConfig cfg = TransportConfig.defaults().option("fabric.provider", "tcp");
        Transport a = new FabricTransportProvider().open(cfg);
        Transport b = new FabricTransportProvider().open(cfg);
        try {
            Pair p = Pair.connect(a, b, "fabric://127.0.0.1:0?provider=tcp");
            AtomicLong next = new AtomicLong();
            AtomicLong corrupt = new AtomicLong();
            long received = p.server().receive()
                    .retain() // consumed on another thread
                    .publishOn(Schedulers.single(), 64)
                    .take(n)
                    .doOnNext(buf -> {
                        long seq = next.getAndIncrement();
                        if (!Messages.verify(buf.segment(), seq, sizeOf(seq))) {
                            corrupt.incrementAndGet();
                        }
                        buf.release();
                        if (seq % 50_000 == 0) {
                            LockSupport.parkNanos(5_000_000); // the consumer stalls: credits run out upstream
                        }
                    })
                    .doOnDiscard(Buffer.class, Buffer::release)
                    .count()
                    .zipWith(p.client().send(Flux.<Buffer, Long>generate(() -> 0L, (s, sink) -> {
                        sink.next(Messages.make(p.client().memory(), s, sizeOf(s)));
                        if (s + 1 == n) {
                            sink.complete();
                        }
                        return s + 1;
                    })).thenReturn(1), (c, x) -> c)
                    .block(Duration.ofSeconds(150));
            EndpointStats sender = p.client().stats().block(Duration.ofSeconds(5));
            EndpointStats receiver = p.server().stats().block(Duration.ofSeconds(5));
            assertThat(corrupt).hasValue(0);
            assertThat(received).isEqualTo(n);
            assertThat(sender.messagesSent()).isEqualTo(n);
            assertThat(sender.maxSendsInFlight()).isLessThanOrEqualTo(receiver.maxReceivesPosted());
            assertThat(receiver.maxReceivesPosted()).isLessThanOrEqualTo(cfg.receiveQueueDepth());
            p.close();
            assertThat(a.memory().buffers().outstanding()).isZero();
            assertThat(b.memory().buffers().outstanding()).isZero();
            return received;
        } finally {
            a.dispose();
            b.dispose();
            assertThat(a.memory().regionCount()).as("registrations left after dispose").isZero();
            assertThat(b.memory().regionCount()).isZero();
        }
    }

    /**
     * Resident memory less the Java heap's committed size, after a full collection: the heap may grow into new
     * regions between the two runs (by a few tens of MiB on a busy machine), which is not what this test looks for.
     */
    private static long nativeResidentBytes() throws Exception {
        System.gc();
        long heap = Runtime.getRuntime().totalMemory(); // the heap as committed now
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D", "")) * 1024 - heap;
            }
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }
}
