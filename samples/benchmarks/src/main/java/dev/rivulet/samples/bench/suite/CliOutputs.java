package dev.rivulet.samples.bench.suite;

import dev.rivulet.samples.bench.Results;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a side-by-side CLI writes its machine-readable runs ({@code --results}) and its table ({@code --report}) for
 * the suite. Both are deleted first, so that a CLI that fails cannot leave an earlier run's files to be read back.
 */
record CliOutputs(Path results, Path report) {

    static CliOutputs in(Path work, String id) throws IOException {
        Files.createDirectories(work);
        CliOutputs o = new CliOutputs(work.resolve(id + ".tsv"), work.resolve(id + ".md"));
        Files.deleteIfExists(o.results);
        Files.deleteIfExists(o.report);
        return o;
    }

    /** {@code args} followed by the two output options. */
    List<String> appendTo(List<String> args) {
        List<String> a = new ArrayList<>(args);
        a.addAll(List.of("--results", results.toString(), "--report", report.toString()));
        return a;
    }

    Results readResults() throws IOException {
        return Results.read(results);
    }

    String readTable() throws IOException {
        return Files.readString(report, StandardCharsets.UTF_8);
    }
}
