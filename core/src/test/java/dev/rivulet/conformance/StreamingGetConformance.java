package dev.rivulet.conformance;

import dev.rivulet.core.EndpointStats;
import dev.rivulet.core.Operation;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.core.memory.RemoteRead;
import dev.rivulet.core.memory.RemoteWrite;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code get(Publisher<RemoteRead>)}, the mirror of the streamed put: every read lands in its own slice whatever the
 * order of completions, demand never runs ahead of the prefetch, cancelling leaves nothing pinned once the reads in
 * flight are back, and a refused read ends the stream with its typed error. Then puts and gets longer than the
 * transport's largest one-sided operation ({@code Capabilities.maxRmaSize}), which go in pieces: on the transport's
 * own limit where a test can afford it, with {@link #rmaSplittingConfig()} where a backend can lower it.
 */
public abstract class StreamingGetConformance extends GrantHandleConformance {

    /** Largest {@code maxRmaSize} the splitting tests run on: they move a few times that much. */
    private static final long SPLITTABLE = 1 << 20;

    /**
     * The configuration under which the splitting tests run: by default {@link #config()}, which skips them where
     * the transport's {@code maxRmaSize} is above 1 MiB. A backend that can lower its limit returns a configuration
     * that does.
     */
    protected TransportConfig rmaSplittingConfig() {
        return config();
    }

    private long prefetch() {
        return Math.min(config().sendPrefetch(), caps().sendQueueDepth());
    }

    // ------------------------------------------------------------------------------------------ streamed gets

    @Test
    void streamedGetsReadEverySliceIntoItsOwnDestinationWithinThePrefetch() {
        int slots = 2048;
        int size = 64;
        MemoryRegion source = server().memory().allocateRegion((long) size * slots, GRANTABLE);
        MemoryRegion destination = client().memory().allocateRegion((long) size * slots);
        for (int i = 0; i < slots; i++) {
            Messages.fill(source.segment().asSlice((long) size * i, size), i);
        }
        RemoteMemory remote = exposeOnServer(source);
        long prefetch = prefetch();
        AtomicLong requested = new AtomicLong();
        AtomicLong overrun = new AtomicLong();
        // Read back to front, so that slot and stream position differ.
        Flux<RemoteRead> reads = Flux.range(0, slots)
                .map(i -> slots - 1 - i)
                .map(i -> new RemoteRead(remote.slice((long) size * i, size),
                        destination.slice((long) size * i, size)))
                .doOnRequest(n -> {
                    // A get's bytes land before its completion, so the slots filled bound the completions from
                    // above: demand beyond them plus the prefetch would be more reads than the prefetch in flight.
                    long total = requested.addAndGet(n);
                    long excess = total - filled(destination.segment(), slots, size) - prefetch;
                    overrun.accumulateAndGet(excess, Math::max);
                });
        StepVerifier.create(client().get(reads)).verifyComplete();
        for (int i = 0; i < slots; i++) {
            assertThat(Messages.verify(destination.segment().asSlice((long) size * i, size), i, size))
                    .as("slot %d", i).isTrue();
        }
        assertThat(overrun.get()).as("demand beyond the prefetch of reads in flight").isLessThanOrEqualTo(0);
        assertThat(requested.get()).isLessThanOrEqualTo(slots + prefetch);
        assertNothingLeft();
        destination.close();
        source.close();
    }

    /** Slots of the destination whose bytes are all there (those read back to front end the stream last). */
    private static long filled(MemorySegment destination, int slots, int size) {
        long n = 0;
        for (int i = 0; i < slots; i++) {
            if (Messages.verify(destination.asSlice((long) size * i, size), i, size)) {
                n++;
            }
        }
        return n;
    }

    @Test
    void cancellingStreamedGetsStopsUpstreamAndUnpinsOnceTheReadsInFlightAreBack() {
        Assumptions.assumeTrue(caps().supports(Operation.GET), "no gets on this transport");
        int size = 256 << 10;
        MemoryRegion source = server().memory().allocateRegion(size, GRANTABLE);
        source.segment().fill((byte) 7);
        RemoteMemory remote = exposeOnServer(source);
        int slots = 4;
        MemoryRegion destination = client().memory().allocateRegion((long) size * slots);
        AtomicLong requested = new AtomicLong();
        AtomicLong cancelled = new AtomicLong();
        Flux<RemoteRead> endless = Flux.<RemoteRead, Long>generate(() -> 0L, (i, sink) -> {
                    sink.next(new RemoteRead(remote, destination.slice((long) size * (i % slots), size)));
                    return i + 1;
                })
                .doOnRequest(requested::addAndGet)
                .doOnCancel(cancelled::incrementAndGet);
        Disposable reading = client().get(endless).subscribe(null, e -> { });
        long prefetch = prefetch();
        awaitTrue(() -> requested.get() > prefetch, "reads completing and asking for more");
        reading.dispose();
        assertThat(cancelled.get()).isEqualTo(1);
        destination.whenUnpinned().block(TIMEOUT);
        // From here nothing of the cancelled stream lands any more.
        destination.segment().fill((byte) 1);
        client().fence().block(TIMEOUT);
        for (long at = 0; at < (long) size * slots; at += 4096) {
            assertThat(destination.segment().get(ValueLayout.JAVA_BYTE, at)).as("byte %d", at).isEqualTo((byte) 1);
        }
        // and the endpoint goes on
        StepVerifier.create(client().get(Flux.just(new RemoteRead(remote, destination.slice(0, size)))))
                .verifyComplete();
        assertThat(destination.segment().get(ValueLayout.JAVA_BYTE, size - 1)).isEqualTo((byte) 7);
        assertNothingLeft();
        destination.close();
        source.close();
    }

    @Test
    void aReadTheInitiatorCanSeeIsWrongEndsTheStreamTypedAndCancelsUpstream() {
        MemoryRegion source = server().memory().allocateRegion(4096, GRANTABLE);
        MemoryRegion destination = client().memory().allocateRegion(8192);
        RemoteMemory remote = exposeOnServer(source);
        AtomicLong cancelled = new AtomicLong();
        // the 100th read is one byte wider than its window: refused before posting, the stream fails with it
        Flux<RemoteRead> reads = Flux.range(0, 1000)
                .map(i -> i == 99 ? new RemoteRead(remote.slice(0, 64), destination.slice(0, 65))
                        : new RemoteRead(remote.slice(64L * (i % 64), 64), destination.slice(64L * (i % 128), 64)))
                .doOnCancel(cancelled::incrementAndGet);
        StepVerifier.create(client().get(reads)).expectError(RemoteAccessException.class).verify(TIMEOUT);
        assertThat(cancelled.get()).isEqualTo(1);
        StepVerifier.create(client().get(Flux.error(new IllegalStateException("upstream broke"))))
                .expectErrorMessage("upstream broke").verify(TIMEOUT);
        StepVerifier.create(client().get((org.reactivestreams.Publisher<RemoteRead>) null))
                .expectError(InvalidRequestException.class).verify(TIMEOUT);
        assertThatThrownBy(() -> new RemoteRead(null, destination.slice())).isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> new RemoteRead(remote, null)).isInstanceOf(InvalidRequestException.class);
        destination.whenUnpinned().block(TIMEOUT);
        StepVerifier.create(client().get(Flux.just(new RemoteRead(remote.slice(0, 64), destination.slice(0, 64)))))
                .verifyComplete();
        assertNothingLeft();
        destination.close();
        source.close();
    }

    @Test
    void aReadTheTargetRefusesEndsTheStreamTypedOnceTheReadsInFlightAreBack() {
        Assumptions.assumeTrue(caps().remoteAccessChecked(), () -> caps().transport()
                + " does not enforce remote keys at the target (see Capabilities#remoteAccessChecked)");
        MemoryRegion source = server().memory().allocateRegion(4096, GRANTABLE);
        MemoryRegion destination = client().memory().allocateRegion(4096);
        RemoteMemory remote = exposeOnServer(source);
        RemoteMemory forged = new RemoteMemory(remote.address(), remote.length(), remote.key() ^ 0x5a5a,
                remote.providerBytes());
        AtomicLong cancelled = new AtomicLong();
        Flux<RemoteRead> reads = Flux.range(0, 1000)
                .map(i -> new RemoteRead((i == 50 ? forged : remote).slice(64L * (i % 64), 64),
                        destination.slice(64L * (i % 64), 64)))
                .doOnCancel(cancelled::incrementAndGet);
        StepVerifier.create(client().get(reads)).expectErrorSatisfies(this::assertRefused).verify(TIMEOUT);
        assertThat(cancelled.get()).isEqualTo(1);
        destination.whenUnpinned().block(TIMEOUT);
        afterRefusal();
        assertNothingLeft();
        destination.close();
        source.close();
    }

    // ------------------------------------------------------------------------------------------ split RMA

    @Test
    void putsAndGetsAboveTheLargestOneSidedOperationGoInPiecesWithinTheirWindow() {
        pair.close();
        pair = connect(rmaSplittingConfig());
        long max = caps().maxRmaSize();
        Assumptions.assumeTrue(max <= SPLITTABLE, () -> caps().transport() + " moves up to " + max
                + " bytes in one operation: too much to split in a test");
        int size = (int) (3 * max + max / 2 + 3);
        int margin = 64;
        MemoryRegion target = server().memory().allocateRegion(size + 2L * margin, GRANTABLE);
        target.segment().fill((byte) 0x11);
        RemoteMemory window = exposeOnServer(server().grant(target.slice(margin, size), GRANTABLE));
        MemoryRegion local = client().memory().allocateRegion(2L * size);
        Messages.fill(local.segment().asSlice(0, size), 5);

        StepVerifier.create(client().put(local.slice(0, size), window).then(client().flush())).verifyComplete();
        assertThat(Messages.verify(target.segment().asSlice(margin, size), 5, size)).isTrue();
        assertUntouchedAround(target.segment(), margin, size);

        local.segment().fill((byte) 0x22);
        StepVerifier.create(client().get(window, local.slice(1, size))).verifyComplete();
        assertThat(Messages.verify(local.segment().asSlice(1, size), 5, size)).isTrue();
        assertThat(local.segment().get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 0x22);
        assertThat(local.segment().get(ValueLayout.JAVA_BYTE, size + 1)).isEqualTo((byte) 0x22);

        // streamed, with elements on both sides of the limit
        long half = size / 2;
        Messages.fill(local.segment().asSlice(0, half), 8);
        Messages.fill(local.segment().asSlice(half, size - half), 9);
        Flux<RemoteWrite> writes = Flux.just(new RemoteWrite(local.slice(0, half), window.slice(0, half)),
                new RemoteWrite(local.slice(half, size - half), window.slice(half, size - half)));
        StepVerifier.create(client().put(writes).then(client().flush())).verifyComplete();
        local.segment().fill((byte) 0);
        Flux<RemoteRead> reads = Flux.just(new RemoteRead(window.slice(half, size - half), local.slice(0, size - half)),
                new RemoteRead(window.slice(0, half), local.slice(size, half)),
                new RemoteRead(window.slice(0, 8), local.slice(size + half, 8)));
        StepVerifier.create(client().get(reads)).verifyComplete();
        assertThat(Messages.verify(local.segment().asSlice(0, size - half), 9, (int) (size - half))).isTrue();
        assertThat(Messages.verify(local.segment().asSlice(size, half), 8, (int) half)).isTrue();
        assertThat(local.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, size + half)).isEqualTo(8L);
        assertUntouchedAround(target.segment(), margin, size);

        // the window is checked for the whole range before any piece goes
        StepVerifier.create(client().get(window, local.slice(0, size + 1)))
                .expectError(RemoteAccessException.class).verify(TIMEOUT);
        StepVerifier.create(client().put(local.slice(0, size + 1), window))
                .expectError(RemoteAccessException.class).verify(TIMEOUT);
        assertUntouchedAround(target.segment(), margin, size);
        assertNothingLeft();
        local.close();
        target.close();
    }

    @Test
    void aSplitGetFailsTypedAndACancelledOneStopsAndUnpins() {
        pair.close();
        pair = connect(rmaSplittingConfig());
        long max = caps().maxRmaSize();
        Assumptions.assumeTrue(max <= SPLITTABLE, () -> caps().transport() + " moves up to " + max
                + " bytes in one operation: too much to split in a test");
        // more pieces than send slots, so that some wait for others' completions
        int size = (int) ((2L * caps().sendQueueDepth() + 3) * max);
        MemoryRegion source = server().memory().allocateRegion(size, GRANTABLE);
        source.segment().fill((byte) 7);
        RemoteMemory remote = exposeOnServer(source);
        MemoryRegion destination = client().memory().allocateRegion(size);

        // cancelled before it started or once its first piece landed: nothing lands once the destination is unpinned
        for (int round = 0; round < 10; round++) {
            destination.segment().fill((byte) 1);
            Disposable get = client().get(remote, destination.slice()).subscribe(null, e -> { });
            if (round % 2 == 1) {
                awaitTrue(() -> destination.segment().get(ValueLayout.JAVA_BYTE, 0) == 7, "the first piece landing");
            }
            get.dispose();
            destination.whenUnpinned().block(TIMEOUT);
            destination.segment().fill((byte) 1);
            client().fence().block(TIMEOUT);
            for (long at = 0; at < size; at += max) {
                assertThat(destination.segment().get(ValueLayout.JAVA_BYTE, at)).as("byte %d", at)
                        .isEqualTo((byte) 1);
            }
        }
        StepVerifier.create(client().get(remote, destination.slice())).verifyComplete();
        assertThat(destination.segment().get(ValueLayout.JAVA_BYTE, size - 1)).isEqualTo((byte) 7);

        if (caps().remoteAccessChecked()) {
            RemoteMemory forged = new RemoteMemory(remote.address(), remote.length(), remote.key() ^ 0x5a5a,
                    remote.providerBytes());
            StepVerifier.create(client().get(forged, destination.slice()))
                    .expectErrorSatisfies(this::assertRefused).verify(TIMEOUT);
            assertThat(destination.whenUnpinned().block(Duration.ofSeconds(5))).isNull();
            afterRefusal();
        }
        assertNothingLeft();
        destination.close();
        source.close();
    }

    /**
     * What a stream or a split get with a refused read fails with: the refusal, or, where a refusal ends the
     * connection ({@code Capabilities.refusalClosesConnection()}), the connection's loss, which the reads posted
     * behind the refused one may report first.
     */
    private void assertRefused(Throwable error) {
        if (caps().refusalClosesConnection()) {
            assertThat(error).isInstanceOfAny(RemoteAccessException.class, ConnectionLostException.class);
        } else {
            assertThat(error).isInstanceOf(RemoteAccessException.class);
        }
    }

    private static void assertUntouchedAround(MemorySegment target, int margin, int size) {
        for (int i = 0; i < margin; i++) {
            assertThat(target.get(ValueLayout.JAVA_BYTE, i)).as("byte %d before the window", i).isEqualTo((byte) 0x11);
            assertThat(target.get(ValueLayout.JAVA_BYTE, margin + size + i)).as("byte %d after the window", i)
                    .isEqualTo((byte) 0x11);
        }
    }

    /** Nothing is left in flight or waiting on the client. */
    private void assertNothingLeft() {
        EndpointStats stats = client().stats().block(TIMEOUT);
        assertThat(stats.pendingOperations()).isZero();
        assertThat(stats.sendsInFlight()).isZero();
    }
}
