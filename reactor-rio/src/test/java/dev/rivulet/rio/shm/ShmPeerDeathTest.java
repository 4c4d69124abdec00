package dev.rivulet.rio.shm;

import dev.rivulet.conformance.Messages;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.LeakDetector;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.core.memory.RemoteWrite;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A peer process killed with SIGKILL: in the middle of a stream of large messages, in the middle of staged puts, and
 * while it has a window of this process's shared memory mapped. Every pending operation ends with
 * {@link ConnectionLostException} within a bound, the memory it pinned is let go, and nothing of either process is
 * left in /dev/shm.
 */
@Timeout(120)
class ShmPeerDeathTest {

    /** How soon after the kill every pending signal must have ended (the transport notices within milliseconds). */
    private static final Duration BOUND = Duration.ofSeconds(3);
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private ChildProcess child;
    private Transport transport;
    private final Arena arena = Arena.ofShared();

    @BeforeAll
    static void requireShm() {
        ShmTests.requireShm();
    }

    @BeforeEach
    void open() {
        LeakDetector.enable();
        LeakDetector.reset();
        transport = ShmTests.open(TransportConfig.defaults());
    }

    @AfterEach
    void close() throws InterruptedException {
        if (child != null) {
            child.close();
        }
        transport.dispose();
        arena.close();
        LeakDetector.disable();
    }

    /** Starts {@link ShmPeerProcess} and returns the line it prints after {@code expect}. */
    private String start(String expect, String... args) throws Exception {
        child = ChildProcess.jvm(List.of(), ShmPeerProcess.class, args);
        return child.await(expect, Duration.ofSeconds(60));
    }

    /** SIGKILLs the peer; returns when it was sent. */
    private long kill() throws InterruptedException {
        long at = System.nanoTime();
        child.process.destroyForcibly();
        assertThat(child.process.waitFor(10, TimeUnit.SECONDS)).isTrue();
        return at;
    }

    private void nothingLeftOf(long... pids) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        for (long pid : pids) {
            while (!ShmTests.filesOf(pid).isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(ShmTests.filesOf(pid)).as("files of process %d in /dev/shm", pid).isEmpty();
        }
    }

    private static void endedWithin(CompletableFuture<Throwable> end, long killedAt, String what) throws Exception {
        Throwable t = end.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        long tookMillis = (System.nanoTime() - killedAt) / 1_000_000;
        assertThat(t).as(what).isInstanceOf(ConnectionLostException.class);
        System.out.printf("%s ended %d ms after the kill%n", what, tookMillis);
        assertThat(Duration.ofMillis(tookMillis)).as(what + " ends soon after the kill").isLessThan(BOUND);
    }

    @Test
    void aPeerKilledInTheMiddleOfLargeMessagesEndsTheStreamAndTheReceiverWithConnectionLost() throws Exception {
        Endpoint ep = transport.connect(start("ADDRESS ", "target", "death-" + ProcessHandle.current().pid()))
                .block(TIMEOUT);
        ep.receive().next().block(TIMEOUT); // the window handle: not needed here
        AtomicLong echoed = new AtomicLong();
        CompletableFuture<Throwable> receiveEnd = new CompletableFuture<>();
        CompletableFuture<Long> started = new CompletableFuture<>();
        ep.receive().subscribe(b -> {
            if (echoed.incrementAndGet() == 200) {
                started.complete(1L);
            }
        }, receiveEnd::complete, () -> receiveEnd.complete(null));
        CompletableFuture<Throwable> sendEnd = new CompletableFuture<>();
        // The generator produces for as long as there is demand, and a fast peer renews it without end: it runs on a
        // thread of its own, so that this one can go on and kill the peer.
        ep.send(Flux.<Buffer, Long>generate(() -> 0L, (s, sink) -> {
            sink.next(Messages.make(ep.memory(), s, 300_000)); // staged through the pool, chunk by chunk
            return s + 1;
        })).subscribeOn(Schedulers.boundedElastic()).subscribe(null, sendEnd::complete, () -> sendEnd.complete(null));
        started.get(30, TimeUnit.SECONDS);
        long pid = child.pid();
        long killedAt = kill();
        endedWithin(sendEnd, killedAt, "the streaming send");
        endedWithin(receiveEnd, killedAt, "receive()");
        StepVerifier.create(ep.flush()).expectError(ConnectionLostException.class).verify(TIMEOUT);
        LeakDetector.awaitNoLeaks(Duration.ofSeconds(10));
        nothingLeftOf(pid, ProcessHandle.current().pid());
    }

    @Test
    void aPeerKilledInTheMiddleOfStagedPutsFailsEveryPendingPutWithConnectionLost() throws Exception {
        Endpoint ep = transport.connect(start("ADDRESS ", "target", "death-put-" + ProcessHandle.current().pid()))
                .block(TIMEOUT);
        RemoteMemory window = ep.receive().asByteArray().next().map(RemoteMemory::fromBytes).block(TIMEOUT);
        MemoryRegion local = transport.memory().register(arena.allocate(1 << 20, 4096));
        Messages.fill(local.segment(), 7);
        AtomicLong puts = new AtomicLong();
        CompletableFuture<Long> started = new CompletableFuture<>();
        CompletableFuture<Throwable> streamEnd = new CompletableFuture<>();
        ep.put(Flux.<RemoteWrite, Long>generate(() -> 0L, (s, sink) -> {
            sink.next(new RemoteWrite(local.slice(), window.slice((s % 4) << 20, 1 << 20)));
            return s + 1;
        }).doOnNext(w -> {
            if (puts.incrementAndGet() == 50) {
                started.complete(1L);
            }
        })).subscribeOn(Schedulers.boundedElastic()) // as the send above: the generator runs on a thread of its own
                .subscribe(null, streamEnd::complete, () -> streamEnd.complete(null));
        List<CompletableFuture<Throwable>> singles = new ArrayList<>();
        started.get(30, TimeUnit.SECONDS);
        for (int i = 0; i < 8; i++) {
            CompletableFuture<Throwable> f = new CompletableFuture<>();
            ep.put(local.slice(0, 64 << 10), window.slice(0, 64 << 10)).subscribe(null, f::complete,
                    () -> f.complete(null));
            singles.add(f);
        }
        long pid = child.pid();
        long killedAt = kill();
        endedWithin(streamEnd, killedAt, "the streamed puts");
        for (CompletableFuture<Throwable> f : singles) {
            Throwable t = f.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            // a put may have been answered before the kill; none hangs, none fails otherwise
            if (t != null) {
                assertThat(t).isInstanceOf(ConnectionLostException.class);
            }
        }
        StepVerifier.create(ep.onClose()).verifyComplete();
        assertThat(local.pins()).as("no pin left on the source of the puts").isZero();
        local.close();
        nothingLeftOf(pid, ProcessHandle.current().pid());
    }

    @Test
    void aKilledPeerThatMappedAWindowLetsTheRegionGoAndLeavesNothing() throws Exception {
        Listener l = transport.bind(ShmTests.address("death-map")).block(TIMEOUT);
        MemoryRegion region = transport.memory().allocateRegion(1 << 20, Access.REMOTE_READ, Access.REMOTE_WRITE);
        CompletableFuture<Endpoint> accepted = new CompletableFuture<>();
        l.accepted().subscribe(ep -> {
            ep.send(ep.grant(region.slice(0, 64 << 10), Access.REMOTE_READ, Access.REMOTE_WRITE).remote().toBytes())
                    .subscribe(null, e -> { });
            accepted.complete(ep);
        });
        start("MAPPED", "mapper", l.address());
        Endpoint ep = accepted.get(30, TimeUnit.SECONDS);
        assertThat(region.pins()).as("the peer's mapping pins the region").isPositive();
        long pid = child.pid();
        long killedAt = kill();
        CompletableFuture<Throwable> closed = new CompletableFuture<>();
        ep.closeReason().subscribe(r -> closed.complete(r.cause()));
        endedWithin(closed, killedAt, "the endpoint");
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (region.pins() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(region.pins()).as("the dead peer's pin is released").isZero();
        region.close();
        StepVerifier.create(region.onClose()).verifyComplete();
        l.dispose();
        nothingLeftOf(pid, ProcessHandle.current().pid());
    }
}
