package dev.rivulet.docs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Benchmark figures have one source: the sections {@code bin/bench} generates in {@code docs/benchmarks/*.md} and
 * the summary table it derives from them in {@code docs/benchmarks.md}. A page under {@code docs/} or the README that
 * quotes a ratio those results do not contain has gone stale (or never was a result), and fails this test.
 *
 * <p>What counts as a quoted ratio, in prose (fenced code, inline code and the generated sections themselves are not
 * prose):
 * <ul>
 *   <li>a number followed by {@code ×} or by an {@code x} that ends the word: "1.56×", "0.8 ×", "2x", and the other
 *       end of a range written "1.07–1.14×" or "4 to 7×";</li>
 *   <li>a numeral followed by "times": "4 to 7 times" (spelt-out numbers, "about ten times", are not figures, and
 *       "100 times a second" or "per" is a frequency);</li>
 *   <li>a bare decimal with at least two fractional digits ("0.13", "3.68") in a paragraph that compares (it names
 *       Netty, Aeron, memcpy, the C bound, a ratio, the results page, or has a "×"), unless a unit follows it
 *       ("0.52 µs", "23.5 GiB": an absolute figure, not a ratio) or it is a version: "6.18.44", or a number the
 *       page names as one somewhere ("libfabric 1.17", "Linux 5.16 or later", "≥ 1.17", "1.17's").</li>
 * </ul>
 * Sizes and option values ("64 KiB", "depth 128") match none of these. A quote passes when the results hold the
 * same number (numerically: "0.8" matches "0.80"); for a range both ends must be there.
 */
class BenchmarkFiguresDocsTest {

    private static final Path ROOT = Path.of("..");

    private static final Pattern GENERATED = Pattern.compile(
            "<!-- bench-(suite|summary):begin -->.*?<!-- bench-\\1:end -->", Pattern.DOTALL);
    private static final Pattern FENCE = Pattern.compile("```.*?```", Pattern.DOTALL);
    private static final Pattern CODE_SPAN = Pattern.compile("`[^`\\n]*`");

    private static final String NUM = "(\\d+(?:\\.\\d+)?)";
    private static final String RANGE = "(?:" + NUM + "\\s?(?:–|-|to)\\s?)?";
    private static final Pattern TIMES_SIGN = Pattern.compile(
            "(?<![\\w.])" + RANGE + NUM + "\\s?(?:×|x(?![\\w]))");
    private static final Pattern TIMES_WORD = Pattern.compile(
            "(?<![\\w.])" + RANGE + "(\\d+(?:\\.\\d+)?) times\\b(?! a\\b| per\\b)");
    private static final Pattern BARE_DECIMAL = Pattern.compile("(?<![\\w.])"
            + "(\\d+\\.\\d{2,})(?![\\d.]|\\s?(?:[KMG]i?B|B\\b|µs|ms|ns|s\\b|%|msgs))");
    /** A version where it is plainly one; the same number elsewhere on the page ("a 1.17 peer") is one too. */
    private static final Pattern VERSION = Pattern.compile("(?:libfabric|Linux|[Vv]ersion|≥) ?(\\d+\\.\\d+)"
            + "|(\\d+\\.\\d+)(?:'s| or (?:later|newer))");
    private static final Pattern ABOUT_RESULTS = Pattern.compile("Netty|Aeron|memcpy|C bound|ratio|×|benchmarks\\.md");
    private static final Pattern ANY_NUMBER = Pattern.compile("\\d{1,3}(?: \\d{3})+(?![\\d.])|\\d+(?:\\.\\d+)?");

    @Test
    void everyQuotedRatioIsInTheLatestResults() throws IOException {
        Set<BigDecimal> results = resultFigures();
        assertThat(results).as("figures in the generated benchmark sections").hasSizeGreaterThan(100);

        List<String> stale = new ArrayList<>();
        for (Path page : pages()) {
            String name = ROOT.relativize(page).toString().replace('\\', '/');
            for (String quote : quotedRatios(Files.readString(page, StandardCharsets.UTF_8))) {
                if (!numbers(quote).stream().allMatch(results::contains)) {
                    stale.add(name + ": " + quote);
                }
            }
        }

        assertThat(stale).as("ratios quoted in prose that no benchmark result holds: take them from "
                + "docs/benchmarks.md or link to it").isEmpty();
    }

    @Test
    void ratiosAreToldApartFromSizesAndDefaults() {
        assertThat(quotedRatios("""
                Puts run at 4 to 7 times libfabric's rate, 0.8× memcpy and 1.07–1.14× native; Netty 2x.
                The paired ratio is 0.13 here, the round trip 0.52 µs.
                Messages of 64 KiB, a depth of 128, `--scale 0.5×`, libfabric 1.17's lock, Linux 6.18.44,
                Linux 5.16 or later, libfabric ≥ 1.17, a 1.17 peer, a loop that runs 100 times a second.

                Depths of 512 ran well: 1.25 in a paragraph that names no peer.
                """)).containsExactly("0.8×", "1.07–1.14×", "2x", "4 to 7 times", "0.13");
    }

    /** The quotes of a page's prose, in the order of the rules above. */
    static List<String> quotedRatios(String page) {
        String prose = CODE_SPAN.matcher(FENCE.matcher(GENERATED.matcher(page).replaceAll("")).replaceAll(""))
                .replaceAll("");
        List<String> quotes = new ArrayList<>();
        for (Pattern p : List.of(TIMES_SIGN, TIMES_WORD)) {
            Matcher m = p.matcher(prose);
            while (m.find()) {
                quotes.add(m.group().strip());
            }
            // What a rule took is not read again as a bare decimal.
            prose = p.matcher(prose).replaceAll(" ");
        }
        Set<String> versions = new HashSet<>();
        Matcher v = VERSION.matcher(prose);
        while (v.find()) {
            versions.add(v.group(1) != null ? v.group(1) : v.group(2));
        }
        for (String paragraph : prose.split("\\n\\s*\\n")) {
            if (ABOUT_RESULTS.matcher(paragraph).find()) {
                Matcher m = BARE_DECIMAL.matcher(paragraph);
                while (m.find()) {
                    if (!versions.contains(m.group(1))) {
                        quotes.add(m.group(1));
                    }
                }
            }
        }
        return quotes;
    }

    /** Every number in the generated sections of the benchmark pages. */
    private static Set<BigDecimal> resultFigures() throws IOException {
        List<Path> sources = new ArrayList<>();
        sources.add(ROOT.resolve("docs/benchmarks.md"));
        try (Stream<Path> s = Files.list(ROOT.resolve("docs/benchmarks"))) {
            s.filter(p -> p.toString().endsWith(".md")).forEach(sources::add);
        }
        Set<BigDecimal> figures = new HashSet<>();
        for (Path source : sources) {
            Matcher m = GENERATED.matcher(Files.readString(source, StandardCharsets.UTF_8));
            while (m.find()) {
                figures.addAll(numbers(m.group()));
            }
        }
        return figures;
    }

    private static Set<BigDecimal> numbers(String text) {
        Set<BigDecimal> out = new HashSet<>();
        Matcher m = ANY_NUMBER.matcher(text);
        while (m.find()) {
            out.add(new BigDecimal(m.group().replace(" ", "")).stripTrailingZeros());
        }
        return out;
    }

    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> s = Files.walk(ROOT.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }
}
