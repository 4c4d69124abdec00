package dev.rivulet.samples.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** What the bench CLIs read alike from their command line and working directory, and how they drive their nodes. */
public final class CliArgs {

    private CliArgs() {
    }

    /**
     * The benchmarks module, absolute: the working directory is the repository root or samples/benchmarks/, told
     * apart by the C program the CLI compiles ({@code src/main/c/<cProgram>}); anywhere else the CLI cannot run, so
     * this exits.
     */
    public static Path moduleDir(String cProgram) {
        String source = "src/main/c/" + cProgram;
        Path module = Files.exists(Path.of("samples/benchmarks/" + source)) ? Path.of("samples/benchmarks")
                : Files.exists(Path.of(source)) ? Path.of(".") : null;
        if (module == null) {
            System.err.println("run from the repository root or from samples/benchmarks/: " + source + " not found");
            System.exit(2);
        }
        return module.toAbsolutePath().normalize();
    }

    /**
     * Where a CLI that compiles nothing runs its node JVMs: the module directory when run from the repository (as
     * {@link #moduleDir}), otherwise the current directory, so that {@code benchmarks.jar} alone runs it on a machine
     * with only a Java runtime.
     */
    public static Path workDir() {
        Path module = Path.of("samples/benchmarks");
        return (Files.isDirectory(module.resolve("src")) ? module : Path.of(".")).toAbsolutePath().normalize();
    }

    /** The arguments as the report quotes them: one line, those with spaces in single quotes. */
    public static String commandLine(String[] args) {
        return Arrays.stream(args).map(a -> a.contains(" ") ? "'" + a + "'" : a).collect(Collectors.joining(" "));
    }

    /** {@code --sizes}, comma-separated message sizes in bytes. */
    public static List<Integer> sizes(Map<String, String> o) {
        return Arrays.stream(o.getOrDefault("sizes", "64,4096,65536,1048576").split(","))
                .map(String::trim).map(Integer::parseInt).toList();
    }

    /** A side-by-side CLI: it measures, then says what it measured as a Markdown table under a header. */
    public interface SideBySide {
        void run() throws Exception;

        /** The lines above the table: machine, command line, how long the whole run took. */
        String header(double seconds);

        /** The Markdown table and its notes. */
        String table();

        Results results();
    }

    /** Runs {@code cli}, prints its header and table and writes the outputs {@code o} asks for. */
    public static void runAndReport(Map<String, String> o, SideBySide cli) throws Exception {
        long t0 = System.nanoTime();
        cli.run();
        String body = cli.table();
        System.out.println();
        System.out.println(cli.header((System.nanoTime() - t0) / 1e9) + body);
        writeOutputs(o, cli.results(), body);
    }

    /**
     * The machine-readable outputs a caller such as {@link dev.rivulet.samples.bench.suite.BenchSuite} asks for:
     * {@code --results PATH}, every recorded run ({@link Results#write}), and {@code --report PATH}, {@code table}
     * (the Markdown table and its notes) as the CLI prints it.
     */
    private static void writeOutputs(Map<String, String> o, Results results, String table) throws IOException {
        if (o.containsKey("results")) {
            results.write(Path.of(o.get("results")));
            System.out.println("wrote " + o.get("results"));
        }
        if (o.containsKey("report")) {
            Path report = Path.of(o.get("report"));
            if (report.getParent() != null) {
                Files.createDirectories(report.getParent());
            }
            Files.writeString(report, table, StandardCharsets.UTF_8);
            System.out.println("wrote " + report);
        }
    }

    /**
     * Sends {@code command} to the client node and returns its answer line; with {@code hot}, both nodes' progress
     * threads busy-poll ({@link SwitchableIdle}) for just that measurement.
     */
    public static String measure(ChildJvm server, ChildJvm client, boolean hot, String command) throws IOException {
        if (hot) {
            server.command("hot", true);
            client.command("hot", true);
        }
        String line = client.command(command, true);
        if (hot) {
            server.command("cold", true);
            client.command("cold", true);
        }
        return line;
    }
}
