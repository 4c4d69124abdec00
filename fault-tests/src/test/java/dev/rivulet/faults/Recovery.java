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
 * time on an error path) and {@link #THREAD_SLACK} more threads (JDK threads started on demand). Closing is
 * asynchronous, so the side is polled until it matches or {@link #WAIT} has passed.
 */
final class Recovery {

    static final int OTHER_FD_SLACK = 2;
    static final int THREAD_SLACK = 2;
    static final Duration WAIT = Duration.ofSeconds(15);

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
        return p;
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
