package dev.rivulet.samples.bench.suite;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Runs a benchmark main class in a JVM of its own, started with this JVM's class path: a CLI that fails (or calls
 * {@code System.exit}) ends only its own run, and a measurement of process CPU time ({@code IdleCpu}) sees only its
 * own process. Its output is passed through as it comes and also returned.
 */
final class CliRun {

    /** Where {@code bin/bench} builds the class path the commands in the docs use, relative to the repository. */
    static final String JAR = "samples/benchmarks/target/benchmarks.jar";

    private CliRun() {
    }

    /** Runs {@code main} with {@code jvmFlags} and {@code args} in {@code dir}; fails unless it exits with 0. */
    static List<String> run(Class<?> main, List<String> jvmFlags, List<String> args, Path dir)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmFlags);
        cmd.add("-cp");
        // Absolute, since the child runs in another directory.
        cmd.add(Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(e -> Path.of(e).toAbsolutePath().toString()).collect(Collectors.joining(File.pathSeparator)));
        cmd.add(main.getName());
        cmd.addAll(args);
        System.out.println("# " + display(main, jvmFlags, args));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                System.out.println(line);
                lines.add(line);
            }
        }
        int rc = p.waitFor();
        if (rc != 0) {
            throw new IllegalStateException(main.getSimpleName() + " exited with status " + rc);
        }
        return lines;
    }

    /** The same command as a person would type it at the repository root, against the built jar. */
    static String display(Class<?> main, List<String> jvmFlags, List<String> args) {
        List<String> words = new ArrayList<>(List.of("java"));
        words.addAll(jvmFlags);
        words.addAll(List.of("-cp", JAR, main.getName()));
        words.addAll(args);
        return String.join(" ", words);
    }
}
