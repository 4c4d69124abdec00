package dev.rivulet.rio.shm;

import dev.rivulet.conformance.Pair;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Idle connections sleep on their futexes: an idle pair costs next to no CPU, and a message to a sleeping peer
 * wakes it at once rather than at its next timed poll (the default idle strategy parks up to 10 ms at a time).
 */
@Timeout(60)
class ShmWakeUpTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private final List<Transport> transports = new ArrayList<>();
    private Pair pair;

    @BeforeAll
    static void requireShm() {
        ShmTests.requireShm();
    }

    @AfterEach
    void close() {
        if (pair != null) {
            pair.close();
        }
        transports.forEach(Transport::dispose);
    }

    private void connect() {
        connect(TransportConfig.defaults());
    }

    private void connect(TransportConfig config) {
        Transport server = ShmTests.open(config);
        Transport client = ShmTests.open(config);
        transports.add(server);
        transports.add(client);
        pair = Pair.connect(server, client, ShmTests.address("wake"));
    }

    /**
     * CPU time of the transports' polling threads in nanoseconds, from /proc/self/task/N/stat (utime + stime in
     * clock ticks of 1/100 s; the kernel's thread name is the Java name cut to 15 characters).
     */
    private long loopCpu() throws IOException {
        long ticks = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (IOException threadEnded) {
                    continue;
                }
                String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                for (Transport tr : transports) {
                    String name = tr.id() + "-progress";
                    if (comm.startsWith(name.substring(0, Math.min(15, name.length())))) {
                        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                        ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime
                    }
                }
            }
        }
        return ticks * 10_000_000L;
    }

    @Test
    void anIdlePairCostsNextToNoCpu() throws Exception {
        connect();
        assertThat(idleShare()).as("share of one core the idle polling threads used").isLessThan(0.03);
    }

    @Test
    void anIdlePairThatSleepsUntilWorkCostsNothingMeasurable() throws Exception {
        connect(TransportConfig.defaults().idleStrategy(dev.rivulet.core.progress.IdleStrategy::blocking));
        assertThat(idleShare()).as("share of one core the idle polling threads used").isLessThan(0.005);
    }

    private double idleShare() throws Exception {
        pair.server().receive().subscribe();
        pair.client().send("warm up").block(TIMEOUT);
        Thread.sleep(300);
        long before = loopCpu();
        long start = System.nanoTime();
        Thread.sleep(2_000);
        double share = (loopCpu() - before) / (double) (System.nanoTime() - start);
        System.out.printf("idle pair: polling threads used %.3f%% of a core%n", share * 100);
        return share;
    }

    @Test
    void aSleepingPeerWakesAsSoonAsAMessageArrives() throws Exception {
        connect();
        BlockingQueue<Long> latencies = new ArrayBlockingQueue<>(64);
        Disposable rx = pair.server().receive().subscribe(b -> latencies.add(System.nanoTime()
                - b.segment().get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0)));
        pair.client().send(new byte[8]).block(TIMEOUT);
        latencies.poll(5, TimeUnit.SECONDS);
        long[] micros = new long[20];
        for (int i = 0; i < micros.length; i++) {
            Thread.sleep(60); // both polling threads are deep in their backoff, asleep
            byte[] stamp = java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.nativeOrder())
                    .putLong(System.nanoTime()).array();
            pair.client().send(stamp).block(TIMEOUT);
            Long took = latencies.poll(5, TimeUnit.SECONDS);
            assertThat(took).isNotNull();
            micros[i] = took / 1_000;
        }
        rx.dispose();
        Arrays.sort(micros);
        System.out.printf("wake-up to delivery, sender and receiver asleep: median %d us, max %d us%n",
                micros[micros.length / 2], micros[micros.length - 1]);
        assertThat(micros[micros.length / 2]).as("median microseconds").isLessThan(2_000);
    }
}
