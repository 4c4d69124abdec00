package dev.rivulet.conformance;

import dev.rivulet.core.MessageClaim;
import dev.rivulet.core.MessageEncoder;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.MessageTooLargeException;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code send(Publisher<T>, maxMessageSize, MessageEncoder)} on every transport: messages written in place arrive
 * whole and in order, demand follows the receiver, and an encoder's failure (a throw, a write outside its claim)
 * ends that send alone.
 */
public abstract class ClaimedSendConformance extends LifecycleConformance {

    /** Largest message the tests below encode. */
    private static final int MAX = 300;

    /** Sizes vary from 8 to {@link #MAX} bytes with the sequence number, so records of a frame differ in length. */
    static int sizeOf(long seq) {
        return 8 + (int) (seq * 37 % (MAX - 7));
    }

    /** Writes what {@link Messages#fill} would, through the claim's bounds-checked puts. */
    static final MessageEncoder<Long> SEQUENCE = (seq, claim) -> {
        int size = sizeOf(seq);
        claim.putLong(0, seq);
        for (int i = 8; i < size; i++) {
            claim.putByte(i, pattern(seq, i));
        }
        return size;
    };

    private static byte pattern(long seq, long i) {
        return (byte) (seq * 31 + i * 7 + (i >>> 8)); // as Messages.fill
    }

    private static Flux<Long> upTo(long count) {
        return Flux.generate(() -> 0L, (seq, sink) -> {
            sink.next(seq);
            if (seq + 1 == count) {
                sink.complete();
            }
            return seq + 1;
        });
    }

    /** Receives {@code count} messages of {@link #SEQUENCE}, checking every byte and the order. */
    private Mono<Long> expectClaimed(long count) {
        AtomicLong next = new AtomicLong();
        return server().receive().take(count).map(b -> {
            long expected = next.getAndIncrement();
            if (!Messages.verify(b.segment(), expected, sizeOf(expected))) {
                throw new AssertionError("message " + expected + " corrupted or out of order");
            }
            return expected;
        }).count();
    }

    @Test
    void claimedMessagesArriveWholeAndInOrder() {
        long n = 20_000; // as many as messagesArriveInOrderUnderLoad: the slowest providers take that long
        Mono<Void> send = client().send(upTo(n), MAX, SEQUENCE);
        StepVerifier.create(expectClaimed(n).zipWith(send.thenReturn(true), (c, s) -> c))
                .expectNext(n)
                .expectComplete()
                .verify(TIMEOUT);
        // Every frame has completed, so its buffer went back; the leak check after the test finds any that did not
        // (the pool's outstanding count cannot tell: wires that hold a buffer per posted receive post more of them
        // as a peer proves itself).
        awaitTrue(() -> {
            var s = client().stats().block(TIMEOUT);
            return s.sendsInFlight() == 0 && s.pendingOperations() == 0;
        }, "every frame completed");
    }

    @Test
    void claimedSendOfItemsEmittedOffTheLoopKeepsOrder() {
        long n = 5_000;
        Flux<Long> items = upTo(n).publishOn(Schedulers.parallel(), 16);
        Mono<Void> send = client().send(items, MAX, SEQUENCE);
        StepVerifier.create(expectClaimed(n).zipWith(send.thenReturn(true), (c, s) -> c))
                .expectNext(n)
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void claimedSendRequestsOnlyWhatASlowReceiverMakesRoomFor() {
        AtomicLong requested = new AtomicLong();
        Flux<Long> items = upTo(1_000_000).doOnRequest(requested::addAndGet);
        Disposable sending = client().send(items, MAX, SEQUENCE).subscribe(null, e -> { });
        try {
            StepVerifier.create(server().receive().limitRate(1).take(50).delayElements(Duration.ofMillis(2)).count())
                    .expectNext(50L)
                    .expectComplete()
                    .verify(TIMEOUT);
            // Requests follow credits: the receive window, the sender's prefetch and a batch, not the source's size.
            long bound = 50L + 4L * Math.max(config().sendPrefetch(), config().receiveQueueDepth()) + caps().receiveQueueDepth();
            assertThat(requested.get()).isLessThanOrEqualTo(bound);
        } finally {
            sending.dispose();
        }
    }

    @Test
    void cancellingAClaimedSendStopsRequestingAndLeavesTheEndpointUp() {
        AtomicLong requested = new AtomicLong();
        Flux<Long> items = upTo(Long.MAX_VALUE).doOnRequest(requested::addAndGet);
        Disposable sending = client().send(items, MAX, SEQUENCE).subscribe(null, e -> { });
        StepVerifier.create(expectClaimed(1_000)).expectNext(1_000L).expectComplete().verify(TIMEOUT);
        sending.dispose();
        long atCancel = requested.get();
        // What was posted before the cancel still arrives; nothing more is asked for, whatever the receiver grants.
        StepVerifier.create(server().receive().take(Duration.ofMillis(300)).count())
                .expectNextCount(1)
                .expectComplete()
                .verify(TIMEOUT);
        assertThat(requested.get()).isEqualTo(atCancel);
        assertEndpointStillSends();
    }

    @Test
    void anEncoderThatThrowsFailsItsSendAfterTheMessagesBeforeIt() {
        IllegalStateException boom = new IllegalStateException("encoder failed");
        MessageEncoder<Long> failingAt500 = (seq, claim) -> {
            if (seq == 500) {
                throw boom;
            }
            return SEQUENCE.encode(seq, claim);
        };
        Received received = receiveClaimed();
        StepVerifier.create(client().send(upTo(1_000), MAX, failingAt500))
                .expectErrorMatches(e -> e == boom)
                .verify(TIMEOUT);
        assertEndpointStillSends(received);
        assertThat(received.count()).hasValue(500);
    }

    @Test
    void aWriteOutsideTheClaimFailsTheSendAndCorruptsNothing() {
        MessageEncoder<Long> overrunAt100 = (seq, claim) -> {
            int size = SEQUENCE.encode(seq, claim);
            if (seq == 100) {
                claim.putLong(claim.capacity() - 4, -1L); // would overwrite the next record's header
            }
            return size;
        };
        Received received = receiveClaimed();
        StepVerifier.create(client().send(upTo(1_000), MAX, overrunAt100))
                .expectError(IndexOutOfBoundsException.class)
                .verify(TIMEOUT);
        assertEndpointStillSends(received);
        assertThat(received.count()).hasValue(100);
    }

    @Test
    void anEncoderThatClaimsMoreThanItsCapacityFailsTheSend() {
        receiveClaimed(); // an encoder runs once the receiver's credits let its message go
        StepVerifier.create(client().send(Flux.just(1L), 16, (seq, claim) -> 17))
                .expectError(InvalidRequestException.class)
                .verify(TIMEOUT);
    }

    @Test
    void aClaimIsClosedOnceItsEncoderReturned() {
        MessageClaim[] kept = new MessageClaim[1];
        Mono<Void> send = client().send(Flux.just(1L), 16, (seq, claim) -> {
            kept[0] = claim;
            claim.putLong(0, seq);
            return 8;
        });
        StepVerifier.create(server().receive().take(1).count().zipWith(send.thenReturn(true), (c, v) -> c))
                .expectNext(1L)
                .expectComplete()
                .verify(TIMEOUT);
        assertThatThrownBy(() -> kept[0].putLong(0, 2L))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void aMaxMessageSizeAboveTheTransportsIsRefused() {
        Assumptions.assumeTrue(caps().maxMessageSize() < Integer.MAX_VALUE, "no size above the limit");
        int tooLarge = (int) caps().maxMessageSize() + 1;
        StepVerifier.create(client().send(Flux.just(1L), tooLarge, SEQUENCE))
                .expectError(MessageTooLargeException.class)
                .verify(TIMEOUT);
    }

    @Test
    void aClaimedSendOfNothingCompletes() {
        StepVerifier.create(client().send(Flux.<Long>empty(), MAX, SEQUENCE))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void anUpstreamErrorEndsTheClaimedSendAfterWhatCameBeforeIt() {
        IllegalArgumentException upstream = new IllegalArgumentException("source failed");
        Received received = receiveClaimed();
        StepVerifier.create(client().send(upTo(10).concatWith(Mono.error(upstream)), MAX, SEQUENCE))
                .expectErrorMatches(e -> e == upstream)
                .verify(TIMEOUT);
        assertEndpointStillSends(received);
        assertThat(received.count()).hasValue(10);
    }

    /** What {@link #receiveClaimed} saw: the {@link #SEQUENCE} messages in order, then any other message. */
    private record Received(AtomicLong count, AtomicReference<String> other) {
    }

    /**
     * Receives {@link #SEQUENCE} messages, checking each, and keeps the first message that is not the next one of
     * the sequence (a message past a failure would show up as a count too high).
     */
    private Received receiveClaimed() {
        Received r = new Received(new AtomicLong(), new AtomicReference<>());
        server().receive().subscribe(b -> {
            long expected = r.count().get();
            if (r.other().get() == null && Messages.verify(b.segment(), expected, sizeOf(expected))) {
                r.count().incrementAndGet();
            } else {
                r.other().compareAndSet(null, b.toUtf8());
            }
        });
        return r;
    }

    /** The endpoint took no harm: a plain send still arrives, after the claimed messages. */
    private void assertEndpointStillSends(Received r) {
        client().send("still up").block(TIMEOUT);
        awaitTrue(() -> "still up".equals(r.other().get()), "a plain message after the failed send");
    }

    /** The endpoint took no harm: a plain send still arrives. */
    private void assertEndpointStillSends() {
        Mono<String> next = server().receive().asString().filter("still up"::equals).next();
        StepVerifier.create(next.zipWith(client().send("still up").thenReturn(true), (s, v) -> s))
                .expectNext("still up")
                .expectComplete()
                .verify(TIMEOUT);
        assertThat(client().isDisposed()).isFalse();
    }
}
