package dev.rivulet.samples.bench.suite;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The table across transports in {@code docs/benchmarks.md}, between {@value #BEGIN} and {@value #END}, derived from
 * the detail pages ({@link SuiteSection}) and from nothing else, so that it can never quote a figure they do not
 * hold: one row per measurement that has a target, with Rivulet's median, its ratios against the peers of that
 * row (Netty, Aeron, native libfabric C, plain C, the C bound, memcpy) and whether the target was met; a table with no
 * peer (the {@code local} engine's time per message against its target) gives its rows with "—" for the ratio. A
 * detail page with no target or no results gets one row pointing to it.
 *
 * <p>Because the table is rebuilt from every page on each run, {@code bin/bench --only tcp} changes exactly the
 * {@code tcp} rows: the other pages, and so their rows, are as the last run left them.
 */
final class SuiteSummary {

    static final String BEGIN = "<!-- bench-summary:begin -->";
    static final String END = "<!-- bench-summary:end -->";

    private static final Pattern BLOCK = Pattern.compile(
            "<!-- bench-suite:([a-z0-9-]+):begin -->\\n(.*?)<!-- bench-suite:\\1:end -->", Pattern.DOTALL);

    /** A target's own statement of what it divides by: "≥ 1 (Rivulet / Netty)". */
    private static final Pattern TARGET_PEER = Pattern.compile("\\(Rivulet / ([^)]+)\\)");

    private SuiteSummary() {
    }

    /** Rewrites the table in {@code summary} from the detail pages in {@code pages} (those that exist). */
    static void update(Path summary, Path pages) throws IOException {
        String pagesDir = summary.toAbsolutePath().getParent().relativize(pages.toAbsolutePath()).toString()
                .replace('\\', '/');
        String doc = Files.exists(summary) ? Files.readString(summary, StandardCharsets.UTF_8) : "# Benchmarks\n";
        Files.writeString(summary, updated(doc, table(read(pages), pagesDir)), StandardCharsets.UTF_8);
    }

    /** The detail pages in {@code pages} that exist, by page name, in the suite's order. */
    static Map<String, String> read(Path pages) throws IOException {
        Map<String, String> texts = new LinkedHashMap<>();
        for (String page : SuiteOptions.TRANSPORTS) {
            Path p = pages.resolve(page + ".md");
            if (Files.exists(p)) {
                texts.put(page, Files.readString(p, StandardCharsets.UTF_8));
            }
        }
        return texts;
    }

    /** {@code doc} with the text between the markers replaced by {@code table} (appended when they are missing). */
    static String updated(String doc, String table) {
        String section = BEGIN + "\n" + table.strip() + "\n" + END;
        int b = doc.indexOf(BEGIN);
        int e = doc.indexOf(END);
        if (b < 0 || e < b) {
            return doc.stripTrailing() + "\n\n" + section + "\n";
        }
        return doc.substring(0, b) + section + doc.substring(e + END.length());
    }

    /** The table from the detail pages' texts, by page name; {@code pagesDir} is their directory from the summary. */
    static String table(Map<String, String> pages, String pagesDir) {
        StringBuilder s = new StringBuilder();
        s.append("| path | measurement | size | Rivulet (median) | Rivulet / peer | target | met? |\n");
        s.append("|---|---|---:|---:|---|---|---|\n");
        pages.forEach((page, text) -> {
            String link = (pagesDir.isEmpty() ? "" : pagesDir + "/") + page + ".md";
            Matcher m = BLOCK.matcher(text);
            while (m.find()) {
                rows(m.group(2), link).forEach(s::append);
            }
        });
        return s.toString();
    }

    /** The rows one block contributes. */
    static List<String> rows(String block, String link) {
        String path = "[" + path(block) + "](" + link + ")";
        List<List<String>> table = firstTable(block);
        List<String> out = new ArrayList<>();
        if (!table.isEmpty()) {
            List<String> head = table.get(0);
            int size = head.indexOf("size");
            int unit = head.indexOf("unit");
            int target = head.indexOf("target");
            int met = head.indexOf("met?");
            int rivulet = rivuletColumn(head);
            for (List<String> row : table.subList(1, table.size())) {
                if (target < 0 || met < 0 || rivulet < 0 || target >= row.size() || met >= row.size()) {
                    continue;
                }
                String t = row.get(target);
                // "—" is no target, "(≥ 0.9)" one the CLI reports but does not count (not a headline row).
                if (t.isEmpty() || t.startsWith("—") || t.startsWith("(")) {
                    continue;
                }
                String ratios = ratios(head, row, t);
                if (ratios.isEmpty()) {
                    // A table with no peer at all (the local engine against its own target) still has its row.
                    if (head.stream().anyMatch(h -> h.contains(" / "))) {
                        continue;
                    }
                    ratios = "—";
                }
                out.add("| " + String.join(" | ", path, measurement(row.get(0)), cell(row, size),
                        median(cell(row, rivulet)) + (unit >= 0 ? " " + cell(row, unit) : ""), ratios, t,
                        row.get(met)) + " |\n");
            }
        }
        if (out.isEmpty()) {
            String why = block.contains("Not measured: ") ? "not measured on the last run" : "no peer or target";
            out.add("| " + path + " | " + why + "; figures on its page | | | | | |\n");
        }
        return out;
    }

    /** The block's heading up to its colon: "libfabric `tcp`", "io_uring, Rivulet with the default idle strategy". */
    private static String path(String block) {
        String heading = block.lines().filter(l -> l.startsWith("### ")).findFirst().orElse("### results")
                .substring(4);
        int colon = heading.indexOf(": ");
        return colon > 0 ? heading.substring(0, colon) : heading;
    }

    /** The measurement's name without the CLI's explanation of it: "ping-pong", "RMA write against native ...". */
    private static String measurement(String name) {
        int cut = name.length();
        for (String stop : List.of(", ", " (", " in place of ")) {
            int i = name.indexOf(stop);
            if (i > 0) {
                cut = Math.min(cut, i);
            }
        }
        return name.substring(0, cut);
    }

    /** The column of Rivulet's median: "Rivulet median", "Rivulet io_uring median (min .. max)", "Rivulet shm://…". */
    private static int rivuletColumn(List<String> head) {
        for (int i = 0; i < head.size(); i++) {
            if (head.get(i).startsWith("Rivulet") && head.get(i).contains("median")) {
                return i;
            }
        }
        return -1;
    }

    /** Every ratio column's value as "0.99 × Netty", the peer named by the column ("Rivulet / Netty") or target. */
    private static String ratios(List<String> head, List<String> row, String target) {
        Matcher own = TARGET_PEER.matcher(target);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < head.size() && i < row.size(); i++) {
            int slash = head.get(i).indexOf(" / ");
            String v = row.get(i);
            if (slash < 0 || v.isEmpty() || v.startsWith("—")) {
                continue;
            }
            String peer = own.find(0) ? own.group(1) : head.get(i).substring(slash + 3);
            out.add(v + " × " + peer);
        }
        return String.join(", ", out);
    }

    /** "3 310 461 (3 279 255 .. 7 585 084)" as its median alone. */
    private static String median(String cell) {
        int paren = cell.indexOf(" (");
        return paren > 0 ? cell.substring(0, paren) : cell;
    }

    private static String cell(List<String> row, int i) {
        return i >= 0 && i < row.size() ? row.get(i) : "";
    }

    /** The block's first Markdown table as trimmed cells, its header first and its delimiter row left out. */
    private static List<List<String>> firstTable(String block) {
        List<List<String>> rows = new ArrayList<>();
        boolean inTable = false;
        for (String line : block.lines().toList()) {
            if (line.startsWith("|")) {
                inTable = true;
                if (!line.startsWith("|---")) {
                    String inner = line.strip();
                    inner = inner.substring(1, inner.endsWith("|") ? inner.length() - 1 : inner.length());
                    rows.add(Arrays.stream(inner.split("\\|", -1)).map(String::strip).toList());
                }
            } else if (inTable) {
                break;
            }
        }
        return rows;
    }
}
