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

    /** The arguments as the report quotes them: one line, those with spaces in single quotes. */
    public static String commandLine(String[] args) {
        return Arrays.stream(args).map(a -> a.contains(" ") ? "'" + a + "'" : a).collect(Collectors.joining(" "));
    }

    /** {@code --sizes}, comma-separated message sizes in bytes. */
    public static List<Integer> sizes(Map<String, String> o) {
        return Arrays.stream(o.getOrDefault("sizes", "64,4096,65536,1048576").split(","))
                .map(String::trim).map(Integer::parseInt).toList();
    }

    /** The benchmarks document to update: {@code --docs}, docs/benchmarks.md by default, null with --no-docs. */
    public static Path docs(Map<String, String> o, Path moduleDir) {
        return o.containsKey("no-docs") ? null
                : Path.of(o.getOrDefault("docs", moduleDir.resolve("../docs/benchmarks.md").normalize().toString()));
    }

    /**
     * The machine-readable outputs a caller such as {@link dev.rivulet.samples.bench.suite.BenchSuite} asks for:
     * {@code --results PATH}, every recorded run ({@link Results#write}), and {@code --report PATH}, {@code table}
     * (the Markdown table and its notes) as it appears in the doc block.
     */
    public static void writeOutputs(Map<String, String> o, Results results, String table) throws IOException {
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
