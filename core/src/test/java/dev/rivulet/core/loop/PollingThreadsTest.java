package dev.rivulet.core.loop;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.memory.Buffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** The polling threads as Reactor sees them: non-blocking, and all of them behind {@code transport.scheduler()}. */
@Timeout(30)
class PollingThreadsTest {

    @Test
    void blockingInAHandlerOnAPollingThreadFailsFastInsteadOfHangingTheLoop() throws InterruptedException {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Boolean> nonBlocking = new AtomicReference<>();
        CountDownLatch handled = new CountDownLatch(1);
        RivuletServer.BoundServer server = RivuletServer.create().bindAddress("local://polling-block")
                .handle(ep -> ep.receive().doOnNext(b -> {
                    nonBlocking.set(Schedulers.isInNonBlockingThread());
                    try {
                        Mono.delay(Duration.ofMillis(10)).block(); // what a careless handler does
                    } catch (IllegalStateException e) {
                        thrown.set(e);
                    }
                    handled.countDown();
                }).then())
                .bindNow();
        Endpoint client = RivuletClient.create().remoteAddress("local://polling-block").connectNow();
        try {
            client.send(client.memory().allocate(8)).block(Duration.ofSeconds(10));
            assertThat(handled.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(nonBlocking.get()).as("receive signals arrive on a NonBlocking thread").isTrue();
            assertThat(thrown.get()).hasMessageContaining("block()/blockFirst()/blockLast() are blocking");
        } finally {
            client.dispose();
            server.dispose();
        }
    }

    @Test
    void theSchedulerSpreadsOverEveryLoopAndKeepsAWorkersTasksInOrder() throws InterruptedException {
        Transport t = Transports.open("local", TransportConfig.defaults().progressThreads(2));
        try {
            Scheduler s = t.scheduler();
            Set<String> threads = ConcurrentHashMap.newKeySet();
            CountDownLatch ran = new CountDownLatch(8);
            for (int i = 0; i < 8; i++) {
                s.schedule(() -> {
                    threads.add(Thread.currentThread().getName());
                    ran.countDown();
                });
            }
            assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(threads).hasSize(2).allMatch(n -> n.contains("-progress-"));

            Scheduler.Worker w = s.createWorker();
            List<Integer> order = new CopyOnWriteArrayList<>();
            Set<String> workerThreads = ConcurrentHashMap.newKeySet();
            CountDownLatch done = new CountDownLatch(100);
            for (int i = 0; i < 100; i++) {
                int n = i;
                w.schedule(() -> {
                    order.add(n);
                    workerThreads.add(Thread.currentThread().getName());
                    done.countDown();
                });
            }
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(order).isSorted().hasSize(100);
            assertThat(workerThreads).hasSize(1);
            w.dispose();
        } finally {
            t.dispose();
        }
    }

    @Test
    void aHandlerThatThrowsEndsItsEndpointAndTheServerKeepsAccepting() {
        RivuletServer.BoundServer server = RivuletServer.create().bindAddress("local://polling-bad-handler")
                .handle(ep -> {
                    if (first.compareAndSet(true, false)) {
                        throw new IllegalStateException("a handler bug");
                    }
                    return ep.send(ep.receive().retain()); // echo
                })
                .bindNow();
        try {
            Endpoint doomed = RivuletClient.create().remoteAddress("local://polling-bad-handler").connectNow();
            Mono<Void> closed = doomed.onClose();
            closed.onErrorComplete().block(Duration.ofSeconds(10));
            assertThat(doomed.isDisposed()).isTrue();

            Endpoint next = RivuletClient.create().remoteAddress("local://polling-bad-handler").connectNow();
            try {
                String echoed = next.receive().asString().next()
                        .doOnSubscribe(x -> next.send("hello").subscribe())
                        .block(Duration.ofSeconds(10));
                assertThat(echoed).isEqualTo("hello");
            } finally {
                next.dispose();
            }
            assertThat(server.isDisposed()).isFalse();
        } finally {
            server.dispose();
        }
    }

    /** The first connection meets a handler bug. */
    private final AtomicBoolean first = new AtomicBoolean(true);
}
