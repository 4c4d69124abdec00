package dev.rivulet.samples.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The shared machine a benchmark CLI runs on: waits before each measurement until other processes leave at least
 * 75 % of the CPUs idle (sampled over 0.4 s from {@code /proc/stat}), and describes the run (load average, build).
 * Each wait is capped, and so is the sum of all waits, so that one invocation ends in bounded time; measurements
 * taken after a wait gave up are counted so that the report can say so.
 */
public final class Machine {

    private final boolean gate;
    private final long maxWaitNanos;
    private final long maxTotalWaitNanos;
    private final String loadBefore = loadAverage();
    private long waitedNanos;
    private int busyMeasurements;

    public Machine(boolean gate, long maxWaitSeconds, long maxTotalWaitSeconds) {
        this.gate = gate;
        this.maxWaitNanos = TimeUnit.SECONDS.toNanos(maxWaitSeconds);
        this.maxTotalWaitNanos = TimeUnit.SECONDS.toNanos(maxTotalWaitSeconds);
    }

    public void waitQuiet() throws InterruptedException {
        if (!gate) {
            return;
        }
        long start = System.nanoTime();
        boolean told = false;
        try {
            for (;;) {
                double busy = cpuBusy(400);
                if (busy < 0.25) {
                    return;
                }
                long waited = System.nanoTime() - start;
                if (waited > maxWaitNanos || waitedNanos + waited > maxTotalWaitNanos) {
                    busyMeasurements++;
                    System.out.printf(Locale.ROOT, "# machine still busy (%.0f %% of the CPUs), measuring anyway%n",
                            busy * 100);
                    return;
                }
                if (!told) {
                    System.out.printf(Locale.ROOT, "# waiting for the machine to quieten (%.0f %% of the CPUs busy)"
                            + "%n", busy * 100);
                    told = true;
                }
                Thread.sleep(1000);
            }
        } finally {
            waitedNanos += System.nanoTime() - start;
        }
    }

    public double waitedSeconds() {
        return waitedNanos / 1e9;
    }

    public int busyMeasurements() {
        return busyMeasurements;
    }

    /** "before / now (1 min)". */
    public String loadAverages() {
        return loadBefore + " / " + loadAverage() + " (1 min)";
    }

    /** Fraction of all CPUs busy over {@code millis}, from /proc/stat (0 where unavailable). */
    public static double cpuBusy(long millis) throws InterruptedException {
        long[] a = cpuTimes();
        Thread.sleep(millis);
        long[] b = cpuTimes();
        if (a == null || b == null) {
            return 0;
        }
        double total = b[0] - a[0];
        return total <= 0 ? 0 : 1 - (b[1] - a[1]) / total;
    }

    /** {total, idle + iowait} jiffies of the "cpu" line. */
    private static long[] cpuTimes() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < Math.min(f.length, 9); i++) {
                total += Long.parseLong(f[i]);
            }
            return new long[]{total, Long.parseLong(f[4]) + Long.parseLong(f[5])};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    public static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException e) {
            return "?";
        }
    }

    /**
     * The machine without anything that changes from run to run (no date, no load), for chart notes and the suite's
     * section: e.g. "2 vCPUs (AMD EPYC), 23.5 GiB memory, Linux 6.18.44, Temurin-25.0.3+9".
     */
    public static String describe() {
        String cpu = cpuModel();
        String mem = memoryGiB();
        String jdk = System.getProperty("java.vendor.version", System.getProperty("java.vm.vendor", "Java"));
        if (!jdk.contains(Runtime.version().toString().split("-")[0])) {
            jdk += " " + Runtime.version();
        }
        // The kernel's release up to its first '-' (the rest names the build, not the version).
        String kernel = System.getProperty("os.version").split("-")[0];
        return String.format(Locale.ROOT, "%d vCPUs%s%s, %s %s, %s", Runtime.getRuntime().availableProcessors(),
                cpu.isEmpty() ? "" : " (" + cpu + ")", mem.isEmpty() ? "" : ", " + mem + " memory",
                System.getProperty("os.name"), kernel, jdk);
    }

    /** The first "model name" of /proc/cpuinfo, or "" where there is none. */
    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim().replaceAll("\\s+", " ")).findFirst().orElse("");
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /** MemTotal of /proc/meminfo in GiB with one decimal ("23.5 GiB"), or "" where there is none. */
    private static String memoryGiB() {
        try {
            return Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith("MemTotal:"))
                    .map(l -> String.format(Locale.ROOT, "%.1f GiB",
                            Long.parseLong(l.replaceAll("\\D", "")) / 1024.0 / 1024.0))
                    .findFirst().orElse("");
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /** The short commit id of {@code dir}'s repository, in backquotes, or "(unknown)". */
    public static String gitHead(Path dir) {
        try {
            Process p = new ProcessBuilder("git", "rev-parse", "--short", "HEAD").directory(dir.toFile())
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return p.waitFor() == 0 ? "`" + out + "`" : "(unknown)";
        } catch (IOException | InterruptedException e) {
            return "(unknown)";
        }
    }

    /**
     * The report line naming the build measured ({@code label}, or the git HEAD of {@code moduleDir}) and how long
     * the measurements waited for a quiet machine.
     */
    public String provenance(String label, Path moduleDir) {
        return String.format(Locale.ROOT, "Build: %s. Waited %.0f s in total for the shared machine to quieten "
                        + "(other processes below 25 %% of the CPUs) before measurements%s.%n%n",
                label != null ? label : "repository HEAD " + gitHead(moduleDir), waitedSeconds(),
                busyMeasurements() == 0 ? "; none ran while it was busier"
                        : "; " + busyMeasurements() + " measurement(s) ran while it was busier (waits gave up)");
    }
}
