package dev.rivulet.faults;

import dev.rivulet.core.Transport;
import dev.rivulet.core.memory.LeakDetector;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * What a child JVM holds, read from {@code /proc/self} and from Rivulet itself, so the test can compare a surviving
 * side after a fault with the same side before it: file descriptors by kind (sockets; anonymous inodes such as
 * io_uring rings, eventfds and epoll sets; pipes; everything else, mostly jar files), native threads with their
 * names, buffers the {@link LeakDetector} still tracks, the pool's outstanding buffers, open grants, files in
 * {@code /dev/shm} that carry this process's pid, and its {@link MemoryUse}.
 */
record ProcessHealth(int sockets, int anonInodes, int pipes, int otherFds, int threads, int leaks, long poolOutstanding,
                     int grants, int shmFiles, MemoryUse memory, String threadNames) {

    /**
     * What the process holds before a scenario: as {@link #of}, after starting the JDK's virtual-thread I/O
     * machinery (its poller thread and carriers, and their epoll descriptors). The JDK starts it on a virtual
     * thread's first blocking socket call, which the warm-up connection's bootstrap channel may or may not have made
     * before it closed (a quick close ends the channel before its thread first reads); without this, a scenario's
     * first such call would count as threads and descriptors the side did not give back.
     */
    static ProcessHealth baseline(Transport transport) {
        try (ServerSocket idle = new ServerSocket(0)) {
            idle.setSoTimeout(1);
            Thread.ofVirtual().start(() -> {
                try {
                    idle.accept();
                } catch (IOException timedOut) {
                    // parked on the poller, which is all this was for
                }
            }).join();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return of(transport);
    }

    static ProcessHealth of(Transport transport) {
        MemoryUse memory = MemoryUse.measure(transport); // first: its collection runs cleaners that close things
        int sockets = 0;
        int anon = 0;
        int pipes = 0;
        int other = 0;
        for (String target : fdTargets()) {
            if (target.startsWith("socket:")) {
                sockets++;
            } else if (target.startsWith("anon_inode:")) {
                anon++;
            } else if (target.startsWith("pipe:")) {
                pipes++;
            } else {
                other++;
            }
        }
        List<String> names = liveThreadNames();
        return new ProcessHealth(sockets, anon, pipes, other, names.size(), LeakDetector.outstanding(),
                transport.memory().buffers().outstanding(), transport.memory().grantCount(), shmFilesOfThisProcess(),
                memory, String.join("|", names));
    }

    /** The protocol line ({@code kind} is BASELINE or HEALTH); thread names go in the free text. */
    String line(String kind) {
        List<Object> fields = new ArrayList<>(List.of("sockets", sockets, "anon", anonInodes, "pipes", pipes,
                "otherFds", otherFds, "threads", threads, "leaks", leaks, "pool", poolOutstanding, "grants", grants,
                "shm", shmFiles));
        fields.addAll(List.of(memory.fields()));
        return Line.format(kind, fields.toArray()) + " -- " + threadNames;
    }

    static ProcessHealth parse(Line l) {
        return new ProcessHealth((int) l.getLong("sockets"), (int) l.getLong("anon"), (int) l.getLong("pipes"),
                (int) l.getLong("otherFds"), (int) l.getLong("threads"), (int) l.getLong("leaks"), l.getLong("pool"),
                (int) l.getLong("grants"), (int) l.getLong("shm"), MemoryUse.parse(l), l.text());
    }

    private static List<String> fdTargets() {
        List<String> out = new ArrayList<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    out.add(Files.readSymbolicLink(fd).toString());
                } catch (IOException e) {
                    // closed between listing and reading (the listing's own descriptor): not held
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc/self/fd", e);
        }
        return out;
    }

    /**
     * Native threads by name, leaving out Reactor's shared {@code boundedElastic} workers: that pool belongs to the
     * JVM, not to a connection (Rivulet borrows it for blocking set-up and background memory registration), and
     * retires an idle worker only after a minute, longer than a scenario waits. A thread Rivulet owns has a name of
     * its own (the transport's) and is still counted.
     */
    private static List<String> liveThreadNames() {
        List<String> names = new ArrayList<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String name = Files.readString(task.resolve("comm")).strip();
                    if (!name.startsWith("boundedElastic")) {
                        names.add(name);
                    }
                } catch (IOException e) {
                    // the thread ended while we looked
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc/self/task", e);
        }
        names.sort(null);
        return names;
    }

    private static int shmFilesOfThisProcess() {
        String pid = Long.toString(ProcessHandle.current().pid());
        try (Stream<Path> files = Files.list(Path.of("/dev/shm"))) {
            return (int) files.map(p -> p.getFileName().toString())
                    .filter(n -> List.of(n.split("\\D+")).contains(pid)).count();
        } catch (IOException e) {
            return 0;
        }
    }
}
