package dev.rivulet.core.internal;

import dev.rivulet.core.error.InvalidRequestException;

import java.time.Duration;
import java.time.format.DateTimeParseException;

/** Parses option values such as {@code 250ms}, {@code 10s}, {@code 2m} or ISO-8601 {@code PT10S}. */
public final class Durations {

    private Durations() {
    }

    public static Duration parse(String key, String value) {
        String v = value == null ? "" : value.trim();
        try {
            if (v.startsWith("P") || v.startsWith("p")) {
                return nonNegative(key, Duration.parse(v));
            }
            if (v.endsWith("ms")) {
                return nonNegative(key, Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2).trim())));
            }
            if (v.endsWith("s")) {
                return nonNegative(key, Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1).trim())));
            }
            if (v.endsWith("m")) {
                return nonNegative(key, Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1).trim())));
            }
        } catch (NumberFormatException | DateTimeParseException e) {
            // reported below
        }
        throw new InvalidRequestException(key + " must be a duration such as 250ms, 10s, 2m or PT10S, not '" + value
                + "'");
    }

    private static Duration nonNegative(String key, Duration d) {
        if (d.isNegative()) {
            throw new InvalidRequestException(key + " must not be negative: " + d);
        }
        return d;
    }
}
