package dev.rivulet.samples.bench.suite;

import dev.rivulet.samples.bench.Options;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What {@link BenchSuite} runs and where it writes.
 *
 * @param only      the transports to run (names from {@link #TRANSPORTS}); none with {@code --render}
 * @param quick     a scaled-down run (one run each, a tenth of the messages, short JMH iterations) for checking that
 *                  everything works; its numbers are not for comparison
 * @param runs      recorded runs per measurement for the side-by-side CLIs, null for each CLI's documented default
 * @param scale     message-count factor for the CLIs, null for their default
 * @param quietGate whether the CLIs wait for the shared machine to quieten before each measurement
 * @param repoRoot  the repository root (the CLIs run there; the reproduce commands are relative to it)
 * @param docs      the summary page, whose table across transports is rebuilt from the detail pages
 * @param charts    the directory of the detail pages and their PNG charts
 * @param work      where the CLIs' machine-readable results and tables go
 */
public record SuiteOptions(Set<String> only, boolean quick, Integer runs, Double scale, boolean quietGate,
                           Path repoRoot, Path docs, Path charts, Path work) {

    /**
     * Every transport the suite knows, in the order it runs and documents them: {@code shm} is libfabric's shm
     * provider, {@code rivulet-shm} Rivulet's own {@code shm://} transport.
     */
    public static final List<String> TRANSPORTS = List.of("tcp", "shm", "rivulet-shm", "sockets", "uring",
            "interactions", "local");

    /** What runs without --only: {@code sockets} (deprecated upstream) only when asked for. */
    public static final List<String> DEFAULT_TRANSPORTS = List.of("tcp", "shm", "rivulet-shm", "uring", "interactions",
            "local");

    static final String USAGE = """
            usage: bin/bench [--quick] [--only tcp,shm,rivulet-shm,sockets,uring,interactions,local] [--runs N]
                             [--scale F] [--no-quiet-gate] [--render] [--docs PATH] [--charts DIR] [--work DIR]
              --quick          one run each, a tenth of the messages, short JMH iterations: checks that it all works
              --only LIST      transports to run (default tcp,shm,rivulet-shm,uring,interactions,local; sockets is
                               a compatibility run); shm is libfabric's shm provider, rivulet-shm Rivulet's shm://,
                               interactions the interaction models over io_uring and shm:// against RSocket
              --runs N         recorded runs per measurement of the side-by-side CLIs (default: theirs, 5 or 3)
              --scale F        message counts x F for the side-by-side CLIs
              --no-quiet-gate  do not wait for the shared machine to quieten before measurements (--quick implies it)
              --render         measure nothing: rebuild the summary table from the detail pages
              --docs PATH      the summary page, whose table across transports is rebuilt (default docs/benchmarks.md)
              --charts DIR     each transport's detail page (tcp.md, uring.md, ...) and its PNG charts
                               (default docs/benchmarks)
              --work DIR       raw results and tables (default samples/benchmarks/target/bench-suite)
            """;

    public static SuiteOptions parse(String[] args, Path repoRoot) {
        Map<String, String> o = Options.parse(args, 0);
        Set<String> known = Set.of("quick", "only", "runs", "scale", "no-quiet-gate", "render", "docs", "charts",
                "work");
        for (String k : o.keySet()) {
            if (!known.contains(k)) {
                throw new IllegalArgumentException("unknown option --" + k);
            }
        }
        Set<String> only = new LinkedHashSet<>(DEFAULT_TRANSPORTS);
        if (o.containsKey("only")) {
            only.clear();
            for (String t : o.get("only").split(",")) {
                String name = t.trim().toLowerCase(Locale.ROOT);
                if (!TRANSPORTS.contains(name)) {
                    throw new IllegalArgumentException("--only: unknown transport '" + name + "' (known: "
                            + String.join(", ", TRANSPORTS) + ")");
                }
                only.add(name);
            }
        }
        if (o.containsKey("render")) {
            // Nothing runs; the summary is still rebuilt from the pages as they are.
            only.clear();
        }
        boolean quick = o.containsKey("quick");
        Path root = repoRoot.toAbsolutePath().normalize();
        return new SuiteOptions(only, quick, o.containsKey("runs") ? Integer.valueOf(o.get("runs")) : null,
                o.containsKey("scale") ? Double.valueOf(o.get("scale")) : null,
                !quick && !o.containsKey("no-quiet-gate"), root,
                root.resolve(o.getOrDefault("docs", "docs/benchmarks.md")),
                root.resolve(o.getOrDefault("charts", "docs/benchmarks")),
                root.resolve(o.getOrDefault("work", "samples/benchmarks/target/bench-suite")));
    }

    /** The repository root: the working directory or its grandparent when started in samples/benchmarks. */
    public static Path findRepoRoot() {
        for (Path p : List.of(Path.of("."), Path.of("../.."))) {
            if (Files.exists(p.resolve("samples/benchmarks/src/main/c/fabric_bench.c"))) {
                return p.toAbsolutePath().normalize();
            }
        }
        throw new IllegalStateException("run from the repository root (samples/benchmarks/src/main/c not found)");
    }

    public boolean runs(String transport) {
        return only.contains(transport);
    }

    /** The options the side-by-side CLIs get from the suite's: runs, scale and the quiet gate. */
    List<String> cliArgs() {
        List<String> a = new ArrayList<>();
        Integer r = runs != null ? runs : quick ? Integer.valueOf(1) : null;
        Double s = scale != null ? scale : quick ? Double.valueOf(0.1) : null;
        if (r != null) {
            a.addAll(List.of("--runs", r.toString()));
        }
        if (s != null) {
            a.addAll(List.of("--scale", s.toString()));
        }
        if (!quietGate) {
            a.add("--no-quiet-gate");
        }
        return a;
    }

    /**
     * The {@code bin/bench} command that repeats this run for one transport: the suite's own options with
     * {@code --only} narrowed to it and the output locations left at their defaults.
     */
    String reproduce(String transport) {
        List<String> a = new ArrayList<>(List.of("bin/bench"));
        if (quick) {
            a.add("--quick");
        }
        if (runs != null) {
            a.addAll(List.of("--runs", runs.toString()));
        }
        if (scale != null) {
            a.addAll(List.of("--scale", scale.toString()));
        }
        if (!quick && !quietGate) {
            a.add("--no-quiet-gate");
        }
        a.addAll(List.of("--only", transport));
        return String.join(" ", a);
    }
}
