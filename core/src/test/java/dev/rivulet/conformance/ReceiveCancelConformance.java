package dev.rivulet.conformance;

import dev.rivulet.core.EndpointStats;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What cancelling {@code receive()} does while the connection stays open, row by row as the table in
 * docs/backpressure.md ("Cancelling a receive") states it: credited messages wait for the next subscriber for the
 * receive linger, then the endpoint discards what waits and what arrives, granting credits, until a subscriber
 * comes; the sender is never stalled by a receiver that left.
 */
public abstract class ReceiveCancelConformance extends LoopFaultConformance {

    private static final int SIZE = 64;

    /** A pair of its own whose transports have {@code linger}; the test closes it. */
    private Pair pairWithLinger(Duration linger) {
        return connect(config().receiveLinger(linger));
    }

    @Test
    void aNewSubscriberWithinTheLingerGetsWhatWaitedInOrder() {
        Pair p = pairWithLinger(TIMEOUT); // longer than this test: nothing may be discarded
        try {
            int count = 40;
            p.client().send(sequence(p.client(), count, SIZE)).subscribe(null, e -> { });
            for (long expected = 0; expected < count; expected++) {
                // One message per subscription: each next() cancels the receive once it has its message.
                long seq = p.server().receive().map(Messages::seq).next().block(TIMEOUT);
                assertThat(seq).as("message read by subscription %d", expected).isEqualTo(expected);
            }
            assertThat(p.server().stats().block(TIMEOUT).messagesDiscarded()).isZero();
        } finally {
            p.close();
        }
    }

    @Test
    void aSenderIsNotStalledOnceTheLingerRunsOutAndANewSubscriberGetsWhatArrivesAfterIt() {
        Pair p = pairWithLinger(Duration.ofMillis(100));
        try {
            long first = 5;
            long total = 20L * p.client().capabilities().receiveQueueDepth();
            List<Long> read = new ArrayList<>();
            Flux<Long> firstFew = p.server().receive().map(Messages::seq).take(first);
            // The receive cancels after a few messages; the sender goes on and must finish without a new subscriber.
            firstFew.doOnNext(read::add).subscribe();
            p.client().send(sequence(p.client(), total, SIZE)).block(TIMEOUT);
            awaitTrue(() -> p.server().stats().block(TIMEOUT).messagesReceived() == total,
                    "every message sent to have reached the receiver");
            EndpointStats s = p.server().stats().block(TIMEOUT);
            assertThat(read).containsExactly(0L, 1L, 2L, 3L, 4L);
            assertThat(s.messagesDiscarded()).as("messages nobody read").isEqualTo(total - first);

            // A new subscriber gets what is sent from its subscription on, in order.
            List<Long> later = new ArrayList<>();
            var next = p.server().receive().map(Messages::seq).take(10).doOnNext(later::add).then().toFuture();
            p.server().stats().block(TIMEOUT); // runs on the endpoint's loop after the subscription it queued
            p.client().send(Flux.range(0, 10).map(i -> Messages.make(p.client().memory(), total + i, SIZE)))
                    .block(TIMEOUT);
            next.join();
            assertThat(later).containsExactly(Flux.range(0, 10).map(i -> total + i).collectList().block()
                    .toArray(Long[]::new));
            assertThat(p.server().stats().block(TIMEOUT).messagesDiscarded()).isEqualTo(total - first);
        } finally {
            p.close();
        }
    }

    @Test
    void aZeroLingerDiscardsFromTheCancellationAndReleasesWhatWaited() {
        Pair p = pairWithLinger(Duration.ZERO);
        try {
            long total = 4L * p.client().capabilities().receiveQueueDepth();
            // Cancelled after the first message: what was credited meanwhile must not leak (checked after each test).
            p.server().receive().take(1).subscribe();
            p.client().send(sequence(p.client(), total, SIZE)).block(TIMEOUT);
            awaitTrue(() -> p.server().stats().block(TIMEOUT).messagesReceived() == total,
                    "every message sent to have reached the receiver");
            assertThat(p.server().stats().block(TIMEOUT).messagesDiscarded()).isEqualTo(total - 1);
        } finally {
            p.close();
        }
    }
}
