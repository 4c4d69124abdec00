package dev.rivulet.rio.shm;

import dev.rivulet.conformance.Messages;
import dev.rivulet.conformance.Pair;
import dev.rivulet.core.EndpointStats;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.LeakDetector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Flow over one connection: a consumer far slower than its producer holds both sides' memory to what the credits
 * allow, large messages included; and a million messages, small ones and staged ones mixed, arrive in order with
 * every byte as sent.
 */
@Timeout(180)
class ShmFlowTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private final List<Transport> transports = new ArrayList<>();

    @BeforeAll
    static void requireShm() {
        ShmTests.requireShm();
    }

    @AfterEach
    void close() {
        transports.forEach(Transport::dispose);
        LeakDetector.disable();
        assertThat(ShmTests.filesOf(ProcessHandle.current().pid())).isEmpty();
    }

    private Pair connect(boolean leakDetection) {
        if (leakDetection) {
            LeakDetector.enable();
            LeakDetector.reset();
        }
        Transport server = ShmTests.open(TransportConfig.defaults());
        Transport client = ShmTests.open(TransportConfig.defaults());
        transports.add(server);
        transports.add(client);
        return Pair.connect(server, client, ShmTests.address("flow"));
    }

    @Test
    void aSlowConsumerOfLargeMessagesHoldsBothSidesMemoryToTheCredits() {
        Pair p = connect(true);
        int rate = 8;
        int size = 256 << 10; // each one staged through the shared pool in chunks
        Scheduler slow = Schedulers.newSingle("slow-consumer");
        AtomicLong consumed = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Disposable rx = p.server().receive().retain().limitRate(rate).publishOn(slow, 1)
                .doOnNext(b -> {
                    try {
                        if (!Messages.verify(b.segment(), consumed.get(), size)) {
                            failure.set(new AssertionError("message " + consumed.get() + " corrupted"));
                        }
                        LockSupport.parkNanos(2_000_000);
                        consumed.incrementAndGet();
                    } finally {
                        b.release();
                    }
                })
                .doOnDiscard(Buffer.class, Buffer::release)
                .subscribe(null, failure::set);
        Disposable tx = p.client().send(Flux.<Buffer, Long>generate(() -> 0L, (s, sink) -> {
            sink.next(Messages.make(p.client().memory(), s, size));
            return s + 1;
        })).subscribe(null, e -> { });
        try {
            long maxServer = 0;
            long maxClient = 0;
            long registeredAfterWarmUp = -1;
            // A pool may register memory only for a new peak of buffers held (itself bounded by the credits, below):
            // the reading is taken once warm, and again a settling time after each later peak, so growth for a
            // peak reached late (the sender's last two buffers of its prefetch) is not counted as growth in flow.
            long readAt = Long.MAX_VALUE;
            long settle = Duration.ofMillis(100).toNanos();
            long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
            while (System.nanoTime() < end || readAt != Long.MAX_VALUE) {
                long server = p.server().memory().buffers().outstanding();
                long client = p.client().memory().buffers().outstanding();
                boolean peak = server > maxServer || client > maxClient;
                maxServer = Math.max(maxServer, server);
                maxClient = Math.max(maxClient, client);
                if (consumed.get() > 100 && (registeredAfterWarmUp < 0 || peak) && readAt == Long.MAX_VALUE) {
                    readAt = System.nanoTime() + settle;
                }
                if (System.nanoTime() >= readAt) {
                    registeredAfterWarmUp = p.server().memory().buffers().registeredBytes()
                            + p.client().memory().buffers().registeredBytes();
                    readAt = Long.MAX_VALUE;
                }
                LockSupport.parkNanos(1_000_000);
            }
            assertThat(failure.get()).isNull();
            assertThat(consumed.get()).as("the consumer got going").isGreaterThan(100);
            EndpointStats sender = p.client().stats().block(TIMEOUT);
            EndpointStats receiver = p.server().stats().block(TIMEOUT);
            System.out.printf("consumed %d, sent %d; buffers held at most: receiver %d, sender %d; credit stalls %d%n",
                    consumed.get(), sender.messagesSent(), maxServer, maxClient, sender.creditStalls());
            assertThat(receiver.maxReceivesPosted()).isLessThanOrEqualTo(rate);
            assertThat(sender.maxSendsInFlight()).isLessThanOrEqualTo(receiver.maxReceivesPosted());
            assertThat(sender.messagesSent() - consumed.get()).as("sent ahead of the consumer")
                    .isLessThanOrEqualTo(2L * rate + 2);
            assertThat(sender.creditStalls()).as("the producer was held back").isPositive();
            // the receiver holds what it was granted and what waits in publishOn; the sender its prefetch
            assertThat(maxServer).isLessThanOrEqualTo(2L * rate + 2);
            assertThat(maxClient).isLessThanOrEqualTo(TransportConfig.DEFAULT_QUEUE_DEPTH + 2L);
            assertThat(p.server().memory().buffers().registeredBytes() + p.client().memory().buffers()
                    .registeredBytes()).as("no memory registered after the warm-up").isEqualTo(registeredAfterWarmUp);
        } finally {
            tx.dispose();
            rx.dispose();
            slow.dispose();
            p.close();
        }
        LeakDetector.awaitNoLeaks(Duration.ofSeconds(10));
    }

    @Test
    void aMillionMessagesArriveInOrderWithEveryByteIntact() {
        // Without the leak detector's stack trace per buffer (two million of them): the pools' own exact counts say
        // whether a buffer was left behind.
        Pair p = connect(false);
        long n = 1_000_000;
        AtomicLong next = new AtomicLong();
        AtomicLong bytes = new AtomicLong();
        long start = System.nanoTime();
        Long got = p.server().receive().take(n).map(b -> {
            long seq = next.getAndIncrement();
            if (!Messages.verify(b.segment(), seq, sizeOf(seq))) {
                throw new AssertionError("message " + seq + " of " + sizeOf(seq) + " bytes corrupted or out of order");
            }
            bytes.addAndGet(b.length());
            return seq;
        }).count().zipWith(p.client().send(Flux.<Buffer, Long>generate(() -> 0L, (s, sink) -> {
            sink.next(Messages.make(p.client().memory(), s, sizeOf(s)));
            if (s + 1 == n) {
                sink.complete();
            }
            return s + 1;
        })).thenReturn(1), (c, x) -> c).block(TIMEOUT);
        double seconds = (System.nanoTime() - start) / 1e9;
        assertThat(got).isEqualTo(n);
        System.out.printf("%d messages (%d MB) verified in %.2f s%n", n, bytes.get() >> 20, seconds);
        p.close();
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (p.client().memory().buffers().outstanding() + p.server().memory().buffers().outstanding() > 0
                && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000);
        }
        assertThat(p.client().memory().buffers().outstanding()).isZero();
        assertThat(p.server().memory().buffers().outstanding()).isZero();
    }

    /** Mostly small messages in the ring; every 997th large enough to go through the pool, a few spanning chunks. */
    private static int sizeOf(long seq) {
        if (seq % 997 == 0) {
            return seq % 3 == 0 ? 3 << 20 : 40_000 + (int) (seq % 5000);
        }
        return 8 + (int) (seq % 200);
    }
}
