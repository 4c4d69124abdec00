package dev.rivulet.core;

import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.internal.Durations;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * A typed, documented transport setting, in the spirit of Netty's {@code ChannelOption}: a key, a default, and how a
 * value is read from text and checked. Each provider lists the options it reads
 * ({@link dev.rivulet.core.spi.TransportProvider#options()}); a transport refuses to open with an option it does not
 * know or a value it cannot use, and the refusal names the known keys.
 *
 * <pre>{@code
 * TransportConfig c = TransportConfig.defaults().option(LocalOptions.NATIVE_QUEUE_DEPTH, 32);
 * }</pre>
 *
 * Options can also be given as text ({@link TransportConfig#option(String, String)}), as property files and Spring
 * configuration do; the text is checked with the same rules.
 *
 * @param <T> the value's type
 */
public final class TransportOption<T> {

    private final String key;
    private final @Nullable T defaultValue;
    private final Function<String, T> parser;
    private final Function<T, String> formatter;
    private final String description;

    private TransportOption(String key, @Nullable T defaultValue, Function<String, T> parser,
                            Function<T, String> formatter, String description) {
        this.key = Objects.requireNonNull(key);
        this.defaultValue = defaultValue;
        this.parser = parser;
        this.formatter = formatter;
        this.description = description;
    }

    /** An integer in {@code [min, max]}. */
    public static TransportOption<Integer> integer(String key, int defaultValue, int min, int max,
                                                   String description) {
        return new TransportOption<>(key, defaultValue, text -> {
            int v;
            try {
                v = Integer.parseInt(text.trim().replace("_", ""));
            } catch (NumberFormatException e) {
                throw invalid(key, text, "an integer in " + min + ".." + max);
            }
            if (v < min || v > max) {
                throw invalid(key, text, "an integer in " + min + ".." + max);
            }
            return v;
        }, String::valueOf, description);
    }

    /** {@code true} or {@code false}. */
    public static TransportOption<Boolean> flag(String key, boolean defaultValue, String description) {
        return new TransportOption<>(key, defaultValue, text -> switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw invalid(key, text, "true or false");
        }, String::valueOf, description);
    }

    /** One of {@code choices}. */
    public static TransportOption<String> choice(String key, String defaultValue, List<String> choices,
                                                 String description) {
        List<String> known = List.copyOf(choices);
        return new TransportOption<>(key, defaultValue, text -> {
            String v = text.trim();
            if (!known.contains(v)) {
                throw invalid(key, text, "one of " + String.join(", ", known));
            }
            return v;
        }, v -> v, description);
    }

    /** Any non-empty text. */
    public static TransportOption<String> text(String key, @Nullable String defaultValue, String description) {
        return new TransportOption<>(key, defaultValue, text -> {
            if (text.isBlank()) {
                throw invalid(key, text, "a non-empty value");
            }
            return text.trim();
        }, v -> v, description);
    }

    /** A positive duration: ISO-8601 ({@code PT5S}) or a number with a unit ({@code 500ms}, {@code 5s}, {@code 2m}). */
    public static TransportOption<Duration> duration(String key, Duration defaultValue, String description) {
        return new TransportOption<>(key, defaultValue, text -> Durations.parse(key, text),
                d -> d.toMillis() + "ms", description);
    }

    private static InvalidRequestException invalid(String key, String text, String expected) {
        return new InvalidRequestException("option " + key + "='" + text + "' is not " + expected);
    }

    public String key() {
        return key;
    }

    public @Nullable T defaultValue() {
        return defaultValue;
    }

    /** What the option does, for error messages and generated documentation. */
    public String description() {
        return description;
    }

    /** Reads {@code text}; throws {@link InvalidRequestException} naming the key and what it expects. */
    public T parse(String text) {
        if (text == null) {
            throw new InvalidRequestException("option " + key + " needs a value");
        }
        return parser.apply(text);
    }

    /** The text form of {@code value}, checked by {@link #parse}. */
    public String format(T value) {
        if (value == null) {
            throw new InvalidRequestException("option " + key + " needs a value");
        }
        String text = formatter.apply(value);
        parse(text);
        return text;
    }

    @Override
    public String toString() {
        return key + " (default " + defaultValue + ")";
    }
}
