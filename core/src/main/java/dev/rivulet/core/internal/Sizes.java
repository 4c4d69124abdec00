package dev.rivulet.core.internal;

import dev.rivulet.core.error.InvalidRequestException;

import java.util.Locale;

/**
 * Parses byte sizes given as option values: a plain number of bytes ({@code 1048576}, {@code 1_048_576}) or a number
 * with a binary unit ({@code 64KiB}, {@code 1MiB}, {@code 2GiB}; {@code K}, {@code M}, {@code G} and
 * {@code KB}/{@code MB}/{@code GB} read the same, as powers of 1024, as the JVM's {@code -Xmx} does).
 */
public final class Sizes {

    private Sizes() {
    }

    /** The size {@code value} names, at least {@code min} bytes. */
    public static long parse(String key, String value, long min) {
        String v = value == null ? "" : value.trim().replace("_", "").toLowerCase(Locale.ROOT);
        long unit = 1;
        for (String[] u : new String[][] {{"kib", "10"}, {"mib", "20"}, {"gib", "30"}, {"kb", "10"}, {"mb", "20"},
                {"gb", "30"}, {"k", "10"}, {"m", "20"}, {"g", "30"}, {"b", "0"}}) {
            if (v.endsWith(u[0])) {
                unit = 1L << Integer.parseInt(u[1]);
                v = v.substring(0, v.length() - u[0].length()).trim();
                break;
            }
        }
        long n;
        try {
            n = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw invalid(key, value, min);
        }
        if (n < 0 || n > Long.MAX_VALUE / unit || n * unit < min) {
            throw invalid(key, value, min);
        }
        return n * unit;
    }

    /** {@code 1MiB}, {@code 64KiB}, {@code 1000B}: the shortest exact text {@link #parse} reads back. */
    public static String format(long bytes) {
        if (bytes != 0 && bytes % (1L << 30) == 0) {
            return bytes / (1L << 30) + "GiB";
        }
        if (bytes != 0 && bytes % (1L << 20) == 0) {
            return bytes / (1L << 20) + "MiB";
        }
        if (bytes != 0 && bytes % (1L << 10) == 0) {
            return bytes / (1L << 10) + "KiB";
        }
        return bytes + "B";
    }

    private static InvalidRequestException invalid(String key, String value, long min) {
        return new InvalidRequestException(key + " must be a size of at least " + format(min)
                + " such as 65536, 64KiB or 1MiB, not '" + value + "'");
    }
}
