package dev.rivulet.faults;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One line of the protocol between the test and its child JVMs, in both directions:
 * {@code KIND key=value key=value -- free text}. Values hold no spaces; the free text (an error message, thread
 * names) is everything after {@code " -- "}.
 */
record Line(String kind, Map<String, String> fields, String text) {

    static Line parse(String raw) {
        String head = raw;
        String text = "";
        int sep = raw.indexOf(" -- ");
        if (sep >= 0) {
            head = raw.substring(0, sep);
            text = raw.substring(sep + 4);
        }
        String[] tokens = head.strip().split("\\s+");
        Map<String, String> fields = new LinkedHashMap<>();
        for (int i = 1; i < tokens.length; i++) {
            int eq = tokens[i].indexOf('=');
            if (eq > 0) {
                fields.put(tokens[i].substring(0, eq), tokens[i].substring(eq + 1));
            } else {
                fields.put(tokens[i], "");
            }
        }
        return new Line(tokens[0], fields, text);
    }

    /** Formats a line: {@code keyValues} alternate keys and values. */
    static String format(String kind, Object... keyValues) {
        StringBuilder sb = new StringBuilder(kind);
        for (int i = 0; i + 1 < keyValues.length; i += 2) {
            sb.append(' ').append(keyValues[i]).append('=').append(String.valueOf(keyValues[i + 1]).replace(' ', '_'));
        }
        return sb.toString();
    }

    String get(String key) {
        String v = fields.get(key);
        if (v == null) {
            throw new IllegalArgumentException("line has no '" + key + "': " + this);
        }
        return v;
    }

    String getOr(String key, String fallback) {
        return fields.getOrDefault(key, fallback);
    }

    long getLong(String key) {
        return Long.parseLong(get(key));
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(kind);
        fields.forEach((k, v) -> sb.append(' ').append(k).append('=').append(v));
        if (!text.isEmpty()) {
            sb.append(" -- ").append(text);
        }
        return sb.toString();
    }
}
