package dev.rivulet.rdma.fabric;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Removes what libfabric 1.17's shm provider leaves in {@code /dev/shm}. Each shm endpoint's region is a file
 * {@code /dev/shm/<pid>:<uid>:<index>} of 16 MiB that the provider unlinks only in {@code fi_close}: a process killed
 * with SIGKILL, or one that exits with an endpoint still open in libfabric (see {@link SameProcessShm}), leaves it
 * behind for good. The names carry the owner's pid, so a survivor can tell: the janitor removes the files of this
 * user whose process is gone, when an shm transport opens and when it closes, and this process's own files when
 * the JVM exits (the mappings stay valid until the process is gone; only the names go).
 */
final class ShmJanitor {

    private static final Logger log = LoggerFactory.getLogger(ShmJanitor.class);
    private static final Path DIR = Path.of("/dev/shm");
    private static final Pattern NAME = Pattern.compile("(\\d{1,10}):(\\d{1,10}):(\\d{1,10})");
    private static final AtomicBoolean EXIT_HOOK = new AtomicBoolean();

    private ShmJanitor() {
    }

    /** Removes shm regions of this user whose owning process no longer runs; returns how many. */
    static int sweepDead() {
        return sweep(false);
    }

    /** Arranges for this process's own regions to be removed when the JVM exits (once per process). */
    static void removeOwnAtExit() {
        if (EXIT_HOOK.compareAndSet(false, true)) {
            Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(() -> sweep(true)));
        }
    }

    private static int sweep(boolean own) {
        if (!Files.isDirectory(DIR)) {
            return 0;
        }
        long self = ProcessHandle.current().pid();
        long uid = uidOf(Path.of("/proc/self"));
        if (uid < 0) {
            return 0;
        }
        int removed = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(DIR)) {
            for (Path f : files) {
                Matcher m = NAME.matcher(f.getFileName().toString());
                if (!m.matches()) {
                    continue;
                }
                long pid = Long.parseLong(m.group(1));
                boolean target = own ? pid == self : pid != self && ProcessHandle.of(pid).isEmpty();
                if (target && Long.parseLong(m.group(2)) == uid && uidOf(f) == uid && Files.deleteIfExists(f)) {
                    removed++;
                }
            }
        } catch (IOException | RuntimeException e) {
            log.debug("sweeping {} failed", DIR, e);
        }
        return removed;
    }

    private static long uidOf(Path p) {
        try {
            return ((Number) Files.getAttribute(p, "unix:uid")).longValue();
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return -1;
        }
    }
}
