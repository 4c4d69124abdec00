package dev.rivulet.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Scenario timings and throughput: printed on the console ({@code [faults] ...}) and appended to
 * {@code target/fault-report.txt}, one line per scenario run, for the reliability figures.
 */
final class FaultReport {

    private FaultReport() {
    }

    static Path targetDir() {
        return Path.of(System.getProperty("basedir", ".")).resolve("target");
    }

    static synchronized void record(String line) {
        System.out.println("[faults] " + line);
        try {
            Files.createDirectories(targetDir());
            Files.writeString(targetDir().resolve("fault-report.txt"), line + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            System.out.println("[faults] cannot append to fault-report.txt: " + e);
        }
    }

    static String mb(long bytes) {
        return String.format("%.1f MB", bytes / 1e6);
    }

    static String rate(long bytes, long millis) {
        return String.format("%.1f MB/s", bytes / 1e3 / Math.max(1, millis));
    }

    static String perSecond(long count, long millis) {
        return String.format("%,d/s", count * 1000 / Math.max(1, millis));
    }
}
