package dev.rivulet.rio.shm;

import dev.rivulet.conformance.Messages;
import dev.rivulet.conformance.Pair;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.engine.AbstractTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A large message over shm:// is announced by one record and arrives chunk by chunk: a peer that has not
 * authenticated has nothing committed for it ahead of its chunks (its buffer grows as they arrive), one that proved the
 * shared secret gets the whole buffer at once; both messages arrive intact.
 */
@Timeout(60)
class ShmReceiveBudgetTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int MIB = 1 << 20;

    private final List<Transport> transports = new ArrayList<>();

    @BeforeAll
    static void requireShm() {
        ShmTests.requireShm();
    }

    @AfterEach
    void close() {
        transports.forEach(Transport::dispose);
    }

    private Pair pair(TransportConfig config) {
        Transport s = ShmTests.open(config);
        Transport c = ShmTests.open(config);
        transports.add(s);
        transports.add(c);
        return Pair.connect(s, c, ShmTests.address("budget"));
    }

    /** Sends a 16 MiB message and returns the most the listener had committed ahead while it arrived. */
    private static long largestCommittedWhileSending(Pair p) {
        // Sampled by the receiver at delivery and by a watcher meanwhile: a max kept atomically, or one sampler's
        // stale read would overwrite the other's larger one.
        AtomicLong most = new AtomicLong();
        AbstractTransport server = (AbstractTransport) p.serverTransport();
        StepVerifier received = StepVerifier.create(p.server().receive()
                        .doOnNext(b -> most.accumulateAndGet(server.stats().receiveCommitted(), Math::max))
                        .map(b -> Messages.verify(b.segment(), 3, 16 * MIB)))
                .expectNext(true).thenCancel().verifyLater();
        Runnable sample = () -> most.accumulateAndGet(server.stats().receiveCommitted(), Math::max);
        Thread watcher = Thread.ofPlatform().start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                sample.run();
                Thread.onSpinWait();
            }
        });
        // A watcher thread may not get a core while the message is under way on a busy machine; samples queued to
        // the listener's own loop run between the polls that copy the message's chunks, whatever the scheduler does.
        Disposable onTheLoop = Flux.interval(Duration.ofNanos(200_000))
                .subscribe(i -> server.scheduler().schedule(sample));
        try {
            StepVerifier.create(p.client().send(Messages.make(p.client().memory(), 3, 16 * MIB))).verifyComplete();
            received.verify(TIMEOUT);
        } finally {
            watcher.interrupt();
            onTheLoop.dispose();
        }
        return most.get();
    }

    @Test
    void anUnauthenticatedPeersLargeMessageIsCommittedOnlyAsItArrives() {
        Pair p = pair(TransportConfig.defaults());
        assertThat(largestCommittedWhileSending(p)).isZero();
        p.close();
    }

    @Test
    void anAuthenticatedPeersLargeMessageIsCommittedAtOnceAndGivenBack() {
        Pair p = pair(TransportConfig.defaults().option("security.secret", "a secret both sides were given"));
        assertThat(largestCommittedWhileSending(p)).isEqualTo(16L * MIB);
        assertThat(((AbstractTransport) p.serverTransport()).stats().receiveCommitted()).isZero();
        p.close();
    }
}
