package dev.rivulet.samples.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The recorded runs of a benchmark CLI: "RESULT k=v ..." lines, parsed and filed by implementation, mode and size,
 * summarised as {@link Spread}s, and the number formats of the result tables.
 */
public final class Results {

    public static final int KIB = 1024;
    public static final int MIB = 1024 * 1024;

    private final Map<String, List<Map<String, String>>> runs = new LinkedHashMap<>();

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
        runs.computeIfAbsent(impl + "/" + mode + "/" + size, k -> new ArrayList<>()).add(result);
    }

    /** The spread of {@code field} over the runs of {@code impl}/{@code mode}/{@code size}, null if none. */
    public Spread spread(String impl, String mode, int size, String field) {
        return Spread.of(runs.get(impl + "/" + mode + "/" + size), field);
    }

    /**
     * The spread of the per-run ratio {@code a / b} of {@code field}, pairing the i-th recorded run of each (the CLIs
     * measure them back to back, so a pair shares the machine's state at that moment), null if either has no runs.
     */
    public Spread pairedRatio(String a, String b, String mode, int size, String field) {
        List<Map<String, String>> ra = runs.get(a + "/" + mode + "/" + size);
        List<Map<String, String>> rb = runs.get(b + "/" + mode + "/" + size);
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
