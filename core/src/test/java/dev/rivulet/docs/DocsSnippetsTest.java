package dev.rivulet.docs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No Java snippet in {@code docs/} can rot: each one is preceded by a marker naming the compiled source it comes from,
 * {@code <!-- snippet: PATH#NAME -->} for a region of a test between {@code // snippet:begin NAME} and
 * {@code // snippet:end}, or {@code <!-- snippet: PATH -->} for an excerpt of a source file (its lines, in order and
 * together, leading spaces aside). The sources are compiled, and the tests holding regions run them. The README's
 * examples have a test of their own ({@code ReadmeExamplesTest}).
 */
class DocsSnippetsTest {

    private static final Path ROOT = Path.of("..");
    private static final Pattern BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern MARKER = Pattern.compile("<!-- snippet: (\\S+?)(?:#(\\S+))? -->\\s*$");

    @Test
    void everyJavaSnippetInTheDocsIsCompiledSource() throws IOException {
        List<String> problems = new ArrayList<>();
        int checked = 0;
        try (Stream<Path> pages = Files.list(ROOT.resolve("docs"))) {
            for (Path page : pages.filter(p -> p.toString().endsWith(".md")).sorted().toList()) {
                String text = Files.readString(page);
                Matcher m = BLOCK.matcher(text);
                while (m.find()) {
                    checked++;
                    String where = page.getFileName() + ":" + (text.substring(0, m.start()).lines().count() + 1);
                    String before = text.substring(0, m.start()).stripTrailing();
                    String lastLine = before.substring(before.lastIndexOf('\n') + 1);
                    Matcher marker = MARKER.matcher(lastLine);
                    if (!marker.find()) {
                        problems.add(where + ": a Java block without a <!-- snippet: ... --> marker");
                        continue;
                    }
                    Path source = ROOT.resolve(marker.group(1));
                    if (!Files.exists(source)) {
                        problems.add(where + ": " + marker.group(1) + " does not exist");
                        continue;
                    }
                    String code = Files.readString(source);
                    String block = m.group(1);
                    String problem = marker.group(2) != null ? region(code, marker.group(2), block)
                            : excerpt(code, block);
                    if (problem != null) {
                        problems.add(where + " (" + marker.group(1) + "): " + problem);
                    }
                }
            }
        }
        assertThat(checked).as("Java snippets found in docs/").isGreaterThan(10);
        assertThat(problems).isEmpty();
    }

    /** Snippets show no import lines, so every page with one says what its snippets import, in one paragraph. */
    @Test
    void everyPageWithJavaSnippetsSaysWhatTheyImport() throws IOException {
        List<String> without = new ArrayList<>();
        try (Stream<Path> pages = Files.list(ROOT.resolve("docs"))) {
            for (Path page : pages.filter(p -> p.toString().endsWith(".md")).sorted().toList()) {
                String text = Files.readString(page);
                if (BLOCK.matcher(text).find() && text.lines().noneMatch(l -> l.startsWith("Imports"))) {
                    without.add(page.getFileName().toString());
                }
            }
        }
        assertThat(without).as("pages with Java snippets and no 'Imports' paragraph").isEmpty();
    }

    /** Null when {@code block} is exactly region {@code name} of {@code code} (indentation aside). */
    private static String region(String code, String name, String block) {
        Matcher r = Pattern.compile("// snippet:begin " + Pattern.quote(name) + "\\n(.*?)\\n\\s*// snippet:end",
                Pattern.DOTALL).matcher(code);
        if (!r.find()) {
            return "no region " + name;
        }
        String want = normalise(r.group(1));
        return want.equals(normalise(block)) ? null : "differs from region " + name + ":\n" + want;
    }

    /** Null when the lines of {@code block} appear in {@code code} in order and together, leading spaces aside. */
    private static String excerpt(String code, String block) {
        List<String> want = block.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
        List<String> have = code.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
        for (int i = 0; i + want.size() <= have.size(); i++) {
            if (have.subList(i, i + want.size()).equals(want)) {
                return null;
            }
        }
        return "not an excerpt of the file (first line: " + (want.isEmpty() ? "" : want.getFirst()) + ")";
    }

    private static String normalise(String code) {
        List<String> lines = new ArrayList<>(code.lines().toList());
        while (!lines.isEmpty() && lines.getLast().isBlank()) {
            lines.removeLast();
        }
        int indent = lines.stream().filter(l -> !l.isBlank()).mapToInt(l -> l.length() - l.stripLeading().length())
                .min().orElse(0);
        return String.join("\n", lines.stream().map(l -> l.isBlank() ? "" : l.substring(indent)).toList());
    }
}
