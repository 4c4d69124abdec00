package dev.rivulet.docs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every relative link of the README and the pages resolves: the file exists, and an anchor names a heading of it (as
 * GitHub derives them) or an {@code <a id>} in it. The pages link to one another instead of restating a fact, so a
 * link that breaks loses the fact.
 */
class DocsLinksTest {

    private static final Path ROOT = Path.of("..");
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6} (.+)$", Pattern.MULTILINE);
    private static final Pattern ID = Pattern.compile("<a id=\"([^\"]+)\"");
    private static final Pattern FENCE = Pattern.compile("```.*?```", Pattern.DOTALL);

    @Test
    void everyRelativeLinkResolves() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        List<String> broken = new ArrayList<>();
        int anchored = 0;
        for (Path page : pages) {
            String text = FENCE.matcher(Files.readString(page)).replaceAll("");
            Matcher m = LINK.matcher(text);
            while (m.find()) {
                String link = m.group(1);
                if (link.matches("^[a-z]+:.*")) {
                    continue; // https:, mailto:
                }
                int hash = link.indexOf('#');
                String file = hash < 0 ? link : link.substring(0, hash);
                Path target = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                if (!Files.exists(target)) {
                    broken.add(page.getFileName() + ": " + link + " (no such file)");
                } else if (hash >= 0) {
                    anchored++;
                    if (!anchors(target).contains(link.substring(hash + 1))) {
                        broken.add(page.getFileName() + ": " + link + " (no such anchor)");
                    }
                }
            }
        }
        assertThat(anchored).as("links to an anchor").isGreaterThan(20);
        assertThat(broken).isEmpty();
    }

    /** The anchors a Markdown page offers: GitHub's heading slugs and explicit ids. */
    private static Set<String> anchors(Path page) throws IOException {
        Set<String> anchors = new HashSet<>();
        if (!page.toString().endsWith(".md")) {
            return anchors;
        }
        String text = Files.readString(page);
        Matcher id = ID.matcher(text);
        while (id.find()) {
            anchors.add(id.group(1));
        }
        Matcher h = HEADING.matcher(FENCE.matcher(text).replaceAll(""));
        while (h.find()) {
            String slug = h.group(1).strip().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "")
                    .replace(' ', '-');
            String unique = slug;
            for (int n = 1; !anchors.add(unique); n++) {
                unique = slug + "-" + n;
            }
        }
        return anchors;
    }
}
