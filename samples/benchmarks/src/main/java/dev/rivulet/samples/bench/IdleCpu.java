package dev.rivulet.samples.bench;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.memory.Buffer;
import reactor.core.Disposable;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * CPU an idle {@code local} transport pair burns: two transports (one polling thread each), one connected endpoint
 * pair, a {@code receive()} subscriber with receives posted, and nothing sent. After a settling pause it measures
 * the polling threads' CPU time ({@link ThreadMXBean}) and the whole process's CPU time over a window and prints
 * them as a percentage of one core.
 *
 * <pre>
 * java -cp samples/benchmarks/target/benchmarks.jar dev.rivulet.samples.bench.IdleCpu [seconds, default 10]
 * </pre>
 */
public final class IdleCpu {

    private IdleCpu() {
    }

    record Sample(String label, long threadId, long cpuNanos) {
    }

    public static void main(String[] args) {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 10;
        double settle = args.length > 1 ? Double.parseDouble(args[1]) : 2;
        ThreadMXBean tmx = ManagementFactory.getThreadMXBean();
        if (!tmx.isThreadCpuTimeSupported()) {
            System.err.println("thread CPU time is not supported by this JVM");
            System.exit(1);
        }
        tmx.setThreadCpuTimeEnabled(true);

        Set<Long> before = threadIds();
        Transport server = Transports.open("local", TransportConfig.defaults());
        Set<Long> serverThreads = minus(threadIds(), before);
        Transport client = Transports.open("local", TransportConfig.defaults());
        Set<Long> clientThreads = minus(minus(threadIds(), before), serverThreads);
        try {
            Listener listener = server.bind("local://idle-cpu").block(Duration.ofSeconds(10));
            Endpoint ep = client.connect(listener.address()).block(Duration.ofSeconds(10));
            Endpoint accepted = listener.accepted().blockFirst(Duration.ofSeconds(10));
            Disposable rx = accepted.receive().subscribe();
            // One round trip of stats proves both loops are up before the window starts.
            ep.stats().block(Duration.ofSeconds(5));
            accepted.stats().block(Duration.ofSeconds(5));

            sleep(settle);
            List<Sample> start = samples(tmx, serverThreads, clientThreads);
            long proc0 = processCpuNanos();
            long t0 = System.nanoTime();
            sleep(seconds);
            long wall = System.nanoTime() - t0;
            long proc = processCpuNanos() - proc0;
            List<Sample> end = samples(tmx, serverThreads, clientThreads);

            System.out.printf(Locale.ROOT, "idle local transport pair (connected, receive() subscribed, nothing sent),"
                    + " window %.1f s, default idle strategy (200 spins, 10 yields, park 10 us..10 ms)%n", wall / 1e9);
            long total = 0;
            for (Sample s : end) {
                long d = s.cpuNanos() - start.stream().filter(x -> x.threadId() == s.threadId())
                        .mapToLong(Sample::cpuNanos).findFirst().orElse(0);
                total += d;
                System.out.printf(Locale.ROOT, "  %-32s cpu %8.2f ms  = %6.3f %% of one core%n", s.label(), d / 1e6,
                        100.0 * d / wall);
            }
            System.out.printf(Locale.ROOT, "IDLE-CPU progress threads: %.3f %% of one core (%.2f ms CPU in %.1f s)%n",
                    100.0 * total / wall, total / 1e6, wall / 1e9);
            if (proc >= 0) {
                System.out.printf(Locale.ROOT, "IDLE-CPU whole JVM process:  %.3f %% of one core (includes the JIT,"
                        + " GC and this measuring thread)%n", 100.0 * proc / wall);
            }
            rx.dispose();
            ep.dispose();
        } finally {
            client.dispose();
            server.dispose();
        }
    }

    private static List<Sample> samples(ThreadMXBean tmx, Set<Long> server, Set<Long> client) {
        List<Sample> out = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            long id = t.threadId();
            String side = server.contains(id) ? "server " : client.contains(id) ? "client " : null;
            if (side != null) {
                out.add(new Sample(side + t.getName(), id, tmx.getThreadCpuTime(id)));
            }
        }
        out.sort((a, b) -> a.label().compareTo(b.label()));
        return out;
    }

    private static long processCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    private static Set<Long> threadIds() {
        Set<Long> ids = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            ids.add(t.threadId());
        }
        return ids;
    }

    private static Set<Long> minus(Set<Long> a, Set<Long> b) {
        Set<Long> r = new HashSet<>(a);
        r.removeAll(b);
        return r;
    }

    private static void sleep(double seconds) {
        long end = System.nanoTime() + (long) (seconds * 1e9);
        long left;
        while ((left = end - System.nanoTime()) > 0) {
            LockSupport.parkNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(200)));
        }
    }
}
