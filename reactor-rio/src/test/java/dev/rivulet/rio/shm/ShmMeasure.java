package dev.rivulet.rio.shm;

import dev.rivulet.conformance.Pair;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.core.memory.RemoteWrite;
import dev.rivulet.rio.ShmOptions;
import dev.rivulet.rio.shm.sys.CrossMemory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A quick measurement of the shared-memory transport, no JMH: two transports in one JVM, each with its own polling
 * thread, so the two ends run on two cores as two processes would. Prints message rates for 64 B and 64 KiB
 * streams, a 64 B ping-pong, 1 MiB streamed puts to ordinary memory (staged, and copied across with
 * {@code process_vm_writev}) and to a mapped window of shared memory, and what the two ways of moving a large
 * payload cost on this machine (two {@code memcpy}s through the pool against one {@code process_vm_readv}).
 *
 * <pre>
 * ./mvnw -q -o -pl reactor-rio test-compile dependency:build-classpath -Dmdep.includeScope=test \
 *     -Dmdep.outputFile=/tmp/rio.cp
 * java --enable-native-access=ALL-UNNAMED \
 *     -cp reactor-rio/target/test-classes:reactor-rio/target/classes:$(cat /tmp/rio.cp) \
 *     dev.rivulet.rio.shm.ShmMeasure [seconds per run, default 3]
 * </pre>
 */
public final class ShmMeasure {

    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    private ShmMeasure() {
    }

    public static void main(String[] args) {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
        System.out.printf("shm:// on %d cores, %s%n", Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.vm.version"));
        copyPaths();
        try (Connected c = new Connected(TransportConfig.defaults())) {
            stream(c.pair, 64, seconds);
            stream(c.pair, 64 << 10, seconds);
            pingPong(c.pair, seconds);
            puts(c.pair, "1 MiB puts to ordinary memory, staged through the pool", false, seconds);
            puts(c.pair, "1 MiB puts to a mapped window of shared memory", true, seconds);
        }
        try (Connected c = new Connected(TransportConfig.defaults().option(ShmOptions.CROSS_MEMORY_ATTACH, true))) {
            puts(c.pair, "1 MiB puts to ordinary memory, process_vm_writev", false, seconds);
        }
    }

    /** Two transports and one connection between them. */
    private static final class Connected implements AutoCloseable {
        final Transport server;
        final Transport client;
        final Pair pair;

        Connected(TransportConfig config) {
            server = new ShmTransportProvider().open(config);
            client = new ShmTransportProvider().open(config);
            pair = Pair.connect(server, client, "shm://measure-" + ProcessHandle.current().pid());
        }

        @Override
        public void close() {
            pair.close();
            client.dispose();
            server.dispose();
        }
    }

    private static void stream(Pair p, int size, double seconds) {
        for (int round = 0; round < 2; round++) { // the first round warms the JIT up
            long n = round == 0 ? 20_000 : (long) (seconds * (size <= 64 ? 4_000_000 : 150_000));
            AtomicLong got = new AtomicLong();
            Mono<Long> received = p.server().receive().take(n).doOnNext(b -> got.incrementAndGet()).count();
            long start = System.nanoTime();
            Flux<Buffer> messages = Flux.generate(() -> 0L, (s, sink) -> {
                sink.next(p.client().memory().allocate(size));
                if (s + 1 == n) {
                    sink.complete();
                }
                return s + 1;
            });
            received.zipWith(p.client().send(messages).thenReturn(1), (a, b) -> a).block(TIMEOUT);
            double secs = (System.nanoTime() - start) / 1e9;
            if (round == 1) {
                System.out.printf("stream %6d B: %,12.0f msg/s  %,9.0f MB/s  (%d messages)%n", size, n / secs,
                        n * (double) size / secs / 1e6, n);
            }
        }
    }

    /** Each pong sends the next ping from the client's receive, on its polling thread: one message at a time. */
    private static void pingPong(Pair p, double seconds) {
        p.server().send(p.server().receive().retain()).subscribe(null, e -> { });
        for (int round = 0; round < 2; round++) {
            long n = round == 0 ? 20_000 : (long) (seconds * 200_000);
            AtomicLong pongs = new AtomicLong();
            java.util.concurrent.CompletableFuture<Long> done = new java.util.concurrent.CompletableFuture<>();
            reactor.core.Disposable rx = p.client().receive().subscribe(b -> {
                if (pongs.incrementAndGet() < n) {
                    p.client().send(p.client().memory().allocate(64)).subscribe();
                } else {
                    done.complete(System.nanoTime());
                }
            });
            long start = System.nanoTime();
            p.client().send(p.client().memory().allocate(64)).subscribe();
            long end = done.join();
            rx.dispose();
            if (round == 1) {
                System.out.printf("ping-pong 64 B: %.2f us per round trip (%d round trips)%n",
                        (end - start) / 1e3 / n, n);
            }
        }
    }

    private static void puts(Pair p, String what, boolean mapped, double seconds) {
        int size = 1 << 20;
        int slots = 8;
        try (Arena arena = Arena.ofShared()) {
            MemoryRegion target = mapped
                    ? p.server().memory().allocateRegion((long) size * slots, Access.REMOTE_WRITE, Access.REMOTE_READ)
                    : p.server().memory().register(arena.allocate((long) size * slots, 4096), Access.REMOTE_WRITE,
                    Access.REMOTE_READ);
            byte[] handle = p.server().grant(target.slice(), Access.REMOTE_WRITE, Access.REMOTE_READ).remote()
                    .toBytes();
            RemoteMemory remote = p.client().receive().asByteArray().next().map(RemoteMemory::fromBytes)
                    .zipWith(p.server().send(handle).thenReturn(1), (r, x) -> r).block(TIMEOUT);
            MemoryRegion local = p.client().memory().register(arena.allocate(size, 4096));
            local.segment().fill((byte) 7);
            for (int round = 0; round < 2; round++) {
                long n = round == 0 ? 200 : (long) (seconds * 3_000);
                long start = System.nanoTime();
                p.client().put(Flux.range(0, (int) n).map(i -> new RemoteWrite(local.slice(),
                        remote.slice((long) (i % slots) * size, size)))).then(p.client().flush()).block(TIMEOUT);
                double secs = (System.nanoTime() - start) / 1e9;
                if (round == 1) {
                    System.out.printf("%-58s %,8.0f puts/s  %6.2f GB/s%n", what + ":", n / secs,
                            n * (double) size / secs / 1e9);
                }
            }
            local.close();
            target.close();
        }
    }

    /** What moving one payload costs here: two copies (into the pool, out of it) or one process_vm_readv. */
    private static void copyPaths() {
        int pid = (int) ProcessHandle.current().pid();
        try (Arena arena = Arena.ofShared()) {
            for (int size : new int[]{4 << 10, 64 << 10, 1 << 20}) {
                MemorySegment src = arena.allocate(size, 4096);
                MemorySegment pool = arena.allocate(size, 4096);
                MemorySegment dst = arena.allocate(size, 4096);
                src.fill((byte) 1);
                int n = Math.max(200, (128 << 20) / size);
                double twoCopies = 0;
                double cma = 0;
                for (int round = 0; round < 3; round++) {
                    long t0 = System.nanoTime();
                    for (int i = 0; i < n; i++) {
                        MemorySegment.copy(src, 0, pool, 0, size);
                        MemorySegment.copy(pool, 0, dst, 0, size);
                    }
                    long t1 = System.nanoTime();
                    for (int i = 0; i < n; i++) {
                        if (CrossMemory.read(pid, dst.address(), src.address(), size) != size) {
                            throw new IllegalStateException("process_vm_readv failed");
                        }
                    }
                    long t2 = System.nanoTime();
                    twoCopies = (t1 - t0) / 1e3 / n;
                    cma = (t2 - t1) / 1e3 / n;
                }
                System.out.printf("moving %7d B: two memcpy %8.2f us (%5.1f GB/s), process_vm_readv %8.2f us "
                        + "(%5.1f GB/s)%n", size, twoCopies, size / twoCopies / 1e3, cma, size / cma / 1e3);
            }
        }
    }
}
