package dev.rivulet.samples.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The recorded runs of a benchmark CLI: "RESULT k=v ..." lines, parsed and filed by implementation, mode and size,
 * summarised as {@link Spread}s, and the number formats of the result tables. {@link #write} and {@link #read} keep
 * them in a tab-separated file, which is how the CLIs hand their runs to the suite's charts.
 */
public final class Results {

    public static final int KIB = 1024;
    public static final int MIB = 1024 * 1024;

    /** The first line of a results file: the columns, the last one repeated for each field of the run. */
    static final String HEADER = "impl\tmode\tsize\trun\tfield=value...";

    /** What a run is filed under. The mode is the CLI's (e.g. "stream-rndv"), which may differ from the node's. */
    private record Key(String impl, String mode, int size) {
    }

    private final Map<Key, List<Map<String, String>>> runs = new LinkedHashMap<>();

    /** min, median, max of one field over the recorded runs. */
    public record Spread(double min, double median, double max, int n) {
        static Spread of(List<Map<String, String>> runs, String field) {
            if (runs == null || runs.isEmpty()) {
                return null;
            }
            return ofValues(runs.stream().mapToDouble(m -> Double.parseDouble(m.get(field))).toArray());
        }

        static Spread ofValues(double[] values) {
            double[] v = values.clone();
            Arrays.sort(v);
            double med = v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
            return new Spread(v[0], med, v[v.length - 1], v.length);
        }

        /** "min .. max" in {@code unit}'s format. */
        public String range(String unit) {
            return value(min, unit) + " .. " + value(max, unit);
        }
    }

    public void add(String impl, String mode, int size, Map<String, String> result) {
        runs.computeIfAbsent(new Key(impl, mode, size), k -> new ArrayList<>()).add(result);
    }

    /** The spread of {@code field} over the runs of {@code impl}/{@code mode}/{@code size}, null if none. */
    public Spread spread(String impl, String mode, int size, String field) {
        List<Map<String, String>> r = runs.get(new Key(impl, mode, size));
        return r == null || r.stream().anyMatch(m -> !m.containsKey(field)) ? null : Spread.of(r, field);
    }

    /** {@code field} of every run of {@code impl}/{@code mode}/{@code size} in recorded order (empty if none). */
    public double[] values(String impl, String mode, int size, String field) {
        return runs.getOrDefault(new Key(impl, mode, size), List.of()).stream()
                .filter(m -> m.containsKey(field)).mapToDouble(m -> Double.parseDouble(m.get(field))).toArray();
    }

    /** The sizes at which {@code impl} ran {@code mode}, ascending. */
    public Set<Integer> sizes(String impl, String mode) {
        Set<Integer> s = new TreeSet<>();
        runs.keySet().stream().filter(k -> k.impl.equals(impl) && k.mode.equals(mode)).forEach(k -> s.add(k.size));
        return s;
    }

    /** The modes {@code impl} ran, in the order they were first recorded. */
    public Set<String> modes(String impl) {
        Set<String> s = new LinkedHashSet<>();
        runs.keySet().stream().filter(k -> k.impl.equals(impl)).forEach(k -> s.add(k.mode));
        return s;
    }

    public boolean isEmpty() {
        return runs.isEmpty();
    }

    /**
     * Writes every recorded run as one line: implementation, mode, size, run number (from 1 within its
     * implementation, mode and size), then each of the run's fields as {@code key=value}, tab-separated, after a
     * header line. The implementation, mode and size are columns, so the fields leave them out.
     */
    public void write(Path file) throws IOException {
        StringBuilder b = new StringBuilder(HEADER).append('\n');
        runs.forEach((k, list) -> {
            for (int i = 0; i < list.size(); i++) {
                b.append(k.impl).append('\t').append(k.mode).append('\t').append(k.size).append('\t').append(i + 1);
                list.get(i).entrySet().stream().filter(e -> !Set.of("impl", "mode", "size").contains(e.getKey()))
                        .sorted(Map.Entry.comparingByKey())
                        .forEach(e -> b.append('\t').append(e.getKey()).append('=').append(e.getValue()));
                b.append('\n');
            }
        });
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        Files.writeString(file, b, StandardCharsets.UTF_8);
    }

    /** Reads a file {@link #write} wrote. */
    public static Results read(Path file) throws IOException {
        Results r = new Results();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.isBlank() || line.equals(HEADER)) {
                continue;
            }
            String[] c = line.split("\t");
            Map<String, String> fields = new HashMap<>();
            for (int i = 4; i < c.length; i++) {
                int eq = c[i].indexOf('=');
                fields.put(c[i].substring(0, eq), c[i].substring(eq + 1));
            }
            r.add(c[0], c[1], Integer.parseInt(c[2]), fields);
        }
        return r;
    }

    /**
     * The spread of the per-run ratio {@code a / b} of {@code field}, pairing the i-th recorded run of each (the CLIs
     * measure them back to back, so a pair shares the machine's state at that moment), null if either has no runs.
     */
    public Spread pairedRatio(String a, String b, String mode, int size, String field) {
        List<Map<String, String>> ra = runs.get(new Key(a, mode, size));
        List<Map<String, String>> rb = runs.get(new Key(b, mode, size));
        if (ra == null || rb == null || ra.isEmpty() || rb.isEmpty()) {
            return null;
        }
        double[] ratios = new double[Math.min(ra.size(), rb.size())];
        for (int i = 0; i < ratios.length; i++) {
            ratios[i] = Double.parseDouble(ra.get(i).get(field)) / Double.parseDouble(rb.get(i).get(field));
        }
        return Spread.ofValues(ratios);
    }

    /** The k=v pairs of a "RESULT ..." line. */
    public static Map<String, String> parse(String line) {
        Map<String, String> m = new HashMap<>();
        for (String kv : line.substring("RESULT ".length()).trim().split("\\s+")) {
            int i = kv.indexOf('=');
            if (i > 0) {
                m.put(kv.substring(0, i), kv.substring(i + 1));
            }
        }
        return m;
    }

    public static String sizeName(int size) {
        return size >= MIB && size % MIB == 0 ? (size / MIB) + " MiB" : size >= KIB && size % KIB == 0
                ? (size / KIB) + " KiB" : size + " B";
    }

    /** Messages/s up to 4 KiB, MB/s from there: the unit in which a streaming row reads best. */
    public static String unitOf(int size) {
        return size <= 4 * KIB ? "msgs/s" : "MB/s";
    }

    /** The RESULT field that holds {@code unit}. */
    public static String fieldOf(String unit) {
        return unit.equals("msgs/s") ? "msgs_per_s" : "mb_per_s";
    }

    /** Rates without decimals (thin-space thousands), latencies in µs with one decimal. */
    public static String value(double v, String unit) {
        return switch (unit) {
            case "msgs/s", "MB/s" -> String.format(Locale.ROOT, "%,.0f", v).replace(',', ' ');
            // Sub-microsecond round trips (shm) need the second decimal to show a ratio's worth of difference.
            default -> String.format(Locale.ROOT, v < 10 ? "%.2f" : "%.1f", v);
        };
    }
}
