package dev.rivulet.samples.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;

/**
 * Writes a benchmark CLI's table into its section of {@code docs/benchmarks.md}, leaving the rest of the file
 * alone. Each configuration (a key such as "tcp:spin") owns one block between {@code <!-- MARKER:KEY:begin -->} and
 * {@code <!-- MARKER:KEY:end -->}: a later run replaces only its own block, so text written by hand around the
 * blocks survives. The first run replaces the section's "not measured yet" placeholder with a description of the
 * method and the block.
 *
 * @param section the section's heading up to where a suffix such as " (issue 3)" may follow, e.g. "## libfabric"
 * @param title   the full heading for a section that does not exist yet
 * @param marker  the block marker prefix, e.g. "fabric-bench"
 * @param method  the method text that replaces the placeholder
 * @param heading the heading line of a key's block
 */
public record BenchmarksDoc(String section, String title, String marker, String method,
                            Function<String, String> heading) {

    public void update(Path file, String key, String table) throws IOException {
        String doc = Files.readString(file, StandardCharsets.UTF_8);
        Files.writeString(file, updated(doc, key, table), StandardCharsets.UTF_8);
    }

    public String updated(String doc, String key, String table) {
        String begin = "<!-- " + marker + ":" + key + ":begin -->";
        String end = "<!-- " + marker + ":" + key + ":end -->";
        String block = begin + "\n" + heading.apply(key) + "\n\n" + table.strip() + "\n" + end + "\n";
        int s = doc.indexOf("\n" + section);
        if (s < 0) {
            return doc.stripTrailing() + "\n\n" + title + "\n\n" + method + "\n" + block;
        }
        int bodyStart = doc.indexOf('\n', s + 1) + 1;
        int next = doc.indexOf("\n## ", bodyStart);
        int sectionEnd = next < 0 ? doc.length() : next + 1;
        String body = doc.substring(bodyStart, sectionEnd);
        String newBody;
        int b = body.indexOf(begin);
        int e = body.indexOf(end);
        if (b >= 0 && e > b) {
            int afterEnd = e + end.length();
            if (afterEnd < body.length() && body.charAt(afterEnd) == '\n') {
                afterEnd++;
            }
            newBody = body.substring(0, b) + block + body.substring(afterEnd);
        } else if (!body.contains("<!-- " + marker + ":")) {
            // The placeholder ("Not measured yet ..."): replaced by the method and the first block.
            newBody = "\n" + method + "\n" + block + "\n";
        } else {
            newBody = body.stripTrailing() + "\n\n" + block + "\n";
        }
        return doc.substring(0, bodyStart) + newBody + doc.substring(sectionEnd);
    }
}
