package dev.rivulet.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Whether a surviving side is back where it started after a fault: compared with the {@link ProcessHealth} it
 * reported before the scenario (after one warm-up connection, so lazily created per-transport resources are in the
 * baseline), it must hold no leaked or outstanding pool buffers, no more grants, sockets, anonymous inodes
 * (io_uring rings, eventfds, epoll sets) or pipes, and no {@code /dev/shm} file of its own. Two kinds of slack, both
 * JDK-internal: {@link #OTHER_FD_SLACK} more other descriptors (jar files opened when a class is loaded for the first
 * time on an error path) and {@link #THREAD_SLACK} more threads (JDK threads started on demand). Its memory
 * ({@link MemoryUse}) must be back too, within the bounds below, each of which a leak of the scenario's traffic (10^6
 * messages, or tens of MB of puts) would pass by far. Closing is asynchronous, so the side is polled until it matches
 * or {@link #WAIT} has passed.
 */
final class Recovery {

    static final int OTHER_FD_SLACK = 2;
    static final int THREAD_SLACK = 2;
    static final Duration WAIT = Duration.ofSeconds(15);

    /**
     * How much the buffer pool's registered memory may have grown. The pool keeps its slabs for reuse and never
     * gives them back, so it ends a scenario as large as the scenario's busiest moment needed: the messages in
     * flight at once (bounded by the receive queue's credits and the send queue), up to 4 MiB of copied get answers
     * per connection, buffers a slow or cut peer left queued until the connection ended. A pool that lost track of
     * released buffers grows with the traffic instead.
     */
    static final long POOL_GROWTH = 128L << 20;
    /** Every pool slab holds at least 1 MiB, so the pool's growth accounts for at most this many new regions each. */
    static final long MIN_SLAB_BYTES = 1L << 20;
    /**
     * How much more {@code malloc}'d memory than the pool's growth may stay: the JVM's own native allocations while
     * new code paths run (the JIT compilers' arena chunks, symbol and string tables, class metadata outside
     * metaspace), a few MB.
     */
    static final long MALLOC_SLACK = 32L << 20;
    /**
     * How much the resident set may have grown beyond what the committed Java heap (pre-touched in the child JVMs),
     * the committed code cache and metaspace, and {@code malloc} explain: thread stacks touched deeper than before
     * (up to {@code -Xss1m} for each of a few dozen threads), GC data structures that follow the heap, pages of
     * shared libraries and the JDK read for the first time on an error path.
     */
    static final long RSS_SLACK = 64L << 20;

    private Recovery() {
    }

    /** Polls {@code side} with HEALTH until it matches {@code baseline}; fails with every difference otherwise. */
    static void assertRecovered(ChildJvm side, ProcessHealth baseline) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        List<String> problems;
        ProcessHealth now;
        do {
            now = ProcessHealth.parse(side.ask("HEALTH", Duration.ofSeconds(10)));
            problems = differences(baseline, now);
            if (problems.isEmpty()) {
                FaultReport.record(memoryGrowth(side.name(), baseline.memory(), now.memory()));
                return;
            }
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        throw new AssertionError(side.name() + " did not return to its baseline within " + WAIT + ": "
                + String.join("; ", problems) + "\n  threads not there before: " + newThreads(baseline, now)
                + "\n  see " + side.log());
    }

    static List<String> differences(ProcessHealth before, ProcessHealth after) {
        List<String> p = new ArrayList<>();
        if (after.leaks() != 0) {
            p.add(after.leaks() + " buffer(s) the LeakDetector still tracks");
        }
        if (after.poolOutstanding() != 0) {
            p.add(after.poolOutstanding() + " pool buffer(s) outstanding");
        }
        atMost(p, "grants", after.grants(), before.grants());
        atMost(p, "sockets", after.sockets(), before.sockets());
        atMost(p, "anonymous-inode descriptors", after.anonInodes(), before.anonInodes());
        atMost(p, "pipes", after.pipes(), before.pipes());
        atMost(p, "other descriptors", after.otherFds(), before.otherFds() + OTHER_FD_SLACK);
        atMost(p, "threads", after.threads(), before.threads() + THREAD_SLACK);
        atMost(p, "own /dev/shm files", after.shmFiles(), before.shmFiles());
        memoryDifferences(p, before.memory(), after.memory());
        return p;
    }

    private static void memoryDifferences(List<String> p, MemoryUse before, MemoryUse after) {
        long pool = after.poolBytes() - before.poolBytes();
        atMost(p, "bytes the buffer pool registered since the baseline", pool, POOL_GROWTH);
        atMost(p, "registered regions", after.regions(), before.regions() + Math.max(0, pool) / MIN_SLAB_BYTES);
        long malloc = pool;
        if (before.mallocBytes() >= 0 && after.mallocBytes() >= 0) {
            malloc = after.mallocBytes() - before.mallocBytes();
            atMost(p, "malloc'd bytes beyond the pool's growth", malloc - pool, MALLOC_SLACK);
        }
        long unexplained = (after.rss() - before.rss()) - (after.heapCommitted() - before.heapCommitted())
                - (after.nonHeapCommitted() - before.nonHeapCommitted()) - malloc;
        atMost(p, "resident bytes beyond heap, code, metaspace and malloc growth", unexplained, RSS_SLACK);
    }

    /** One line on how a side's memory compares with its baseline, for the report. */
    static String memoryGrowth(String side, MemoryUse before, MemoryUse after) {
        return String.format("%s memory after the scenario: pool %+.1f MB, regions %+d, malloc %+.1f MB, resident "
                        + "%+.1f MB (heap %+.1f MB, code and metaspace %+.1f MB)", side,
                (after.poolBytes() - before.poolBytes()) / 1e6, after.regions() - before.regions(),
                (after.mallocBytes() - before.mallocBytes()) / 1e6, (after.rss() - before.rss()) / 1e6,
                (after.heapCommitted() - before.heapCommitted()) / 1e6,
                (after.nonHeapCommitted() - before.nonHeapCommitted()) / 1e6);
    }

    private static void atMost(List<String> problems, String what, long now, long limit) {
        if (now > limit) {
            problems.add(what + " " + now + " > " + limit);
        }
    }

    /** Threads in {@code after} that {@code before} did not have (by name), for a failure message. */
    static List<String> newThreads(ProcessHealth before, ProcessHealth after) {
        List<String> b = new ArrayList<>(Arrays.asList(before.threadNames().split("\\|")));
        List<String> extra = new ArrayList<>();
        for (String n : after.threadNames().split("\\|")) {
            if (!b.remove(n)) {
                extra.add(n);
            }
        }
        return extra;
    }
}
