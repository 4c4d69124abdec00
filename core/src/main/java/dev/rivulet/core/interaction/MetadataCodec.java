package dev.rivulet.core.interaction;

import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.interaction.frame.Frames;
import org.jspecify.annotations.Nullable;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@link Metadata} on the wire: a sequence of entries, each a kind byte, a little-endian int length and that many
 * bytes. Kinds: 1 route, 2 content type (UTF-8), 3 header (a little-endian short key length, the key, the value, in
 * UTF-8), 4 application metadata. Unknown kinds are skipped, so a newer peer may add some. Decoding checks every
 * length against the bytes there are and fails with {@link InvalidRequestException} on anything malformed.
 */
final class MetadataCodec {

    static final int ROUTE = 1;
    static final int CONTENT_TYPE = 2;
    static final int HEADER = 3;
    static final int APPLICATION = 4;
    private static final int ENTRY = 5;

    private MetadataCodec() {
    }

    /** The bytes {@code m} takes on the wire. */
    static int encodedLength(Metadata m) {
        if (m.isEmpty()) {
            return 0;
        }
        long n = 0;
        if (m.route() != null) {
            n += ENTRY + utf8Length(m.route());
        }
        if (m.contentType() != null) {
            n += ENTRY + utf8Length(m.contentType());
        }
        for (Map.Entry<String, String> h : m.headers().entrySet()) {
            n += ENTRY + 2 + utf8Length(h.getKey()) + utf8Length(h.getValue());
        }
        byte[] app = m.applicationUnsafe();
        if (app != null) {
            n += ENTRY + app.length;
        }
        if (n > Integer.MAX_VALUE - Frames.HEADER) {
            throw new InvalidRequestException("metadata of " + n + " bytes");
        }
        return (int) n;
    }

    /** Writes {@code m} at {@code offset}; returns the offset after it. */
    static long encode(Metadata m, MemorySegment s, long offset) {
        if (m.route() != null) {
            offset = string(s, offset, ROUTE, m.route());
        }
        if (m.contentType() != null) {
            offset = string(s, offset, CONTENT_TYPE, m.contentType());
        }
        for (Map.Entry<String, String> h : m.headers().entrySet()) {
            byte[] k = h.getKey().getBytes(StandardCharsets.UTF_8);
            byte[] v = h.getValue().getBytes(StandardCharsets.UTF_8);
            s.set(ValueLayout.JAVA_BYTE, offset, (byte) HEADER);
            Frames.putInt(s, offset + 1, 2 + k.length + v.length);
            s.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN), offset + ENTRY,
                    (short) k.length);
            MemorySegment.copy(k, 0, s, ValueLayout.JAVA_BYTE, offset + ENTRY + 2, k.length);
            MemorySegment.copy(v, 0, s, ValueLayout.JAVA_BYTE, offset + ENTRY + 2 + k.length, v.length);
            offset += ENTRY + 2 + k.length + v.length;
        }
        byte[] app = m.applicationUnsafe();
        if (app != null) {
            offset = bytes(s, offset, APPLICATION, app);
        }
        return offset;
    }

    /** Reads the metadata in {@code [offset, offset + length)} of {@code s}. */
    static Metadata decode(MemorySegment s, long offset, int length) {
        if (length == 0) {
            return Metadata.EMPTY;
        }
        String route = null;
        String contentType = null;
        Map<String, String> headers = null;
        byte[] app = null;
        long end = offset + length;
        while (offset < end) {
            if (end - offset < ENTRY) {
                throw malformed("a truncated entry");
            }
            int kind = s.get(ValueLayout.JAVA_BYTE, offset) & 0xFF;
            int n = Frames.getInt(s, offset + 1);
            long at = offset + ENTRY;
            if (n < 0 || n > end - at) {
                throw malformed("an entry of " + n + " bytes with " + (end - at) + " left");
            }
            switch (kind) {
                case ROUTE -> route = utf8(s, at, n);
                case CONTENT_TYPE -> contentType = utf8(s, at, n);
                case HEADER -> {
                    if (n < 2) {
                        throw malformed("a header without its key length");
                    }
                    int k = s.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN), at)
                            & 0xFFFF;
                    if (k > n - 2) {
                        throw malformed("a header key of " + k + " bytes in an entry of " + n);
                    }
                    if (headers == null) {
                        headers = new LinkedHashMap<>();
                    }
                    headers.put(utf8(s, at + 2, k), utf8(s, at + 2 + k, n - 2 - k));
                }
                case APPLICATION -> app = s.asSlice(at, n).toArray(ValueLayout.JAVA_BYTE);
                default -> {
                    // a kind this version does not know: skipped
                }
            }
            offset = at + n;
        }
        return new Metadata(route, contentType,
                headers == null ? Map.of() : Collections.unmodifiableMap(headers), app);
    }

    private static long string(MemorySegment s, long offset, int kind, String value) {
        return bytes(s, offset, kind, value.getBytes(StandardCharsets.UTF_8));
    }

    private static long bytes(MemorySegment s, long offset, int kind, byte[] b) {
        s.set(ValueLayout.JAVA_BYTE, offset, (byte) kind);
        Frames.putInt(s, offset + 1, b.length);
        MemorySegment.copy(b, 0, s, ValueLayout.JAVA_BYTE, offset + ENTRY, b.length);
        return offset + ENTRY + b.length;
    }

    private static String utf8(MemorySegment s, long offset, int n) {
        return new String(s.asSlice(offset, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }

    private static int utf8Length(@Nullable String s) {
        return s == null ? 0 : s.getBytes(StandardCharsets.UTF_8).length;
    }

    private static InvalidRequestException malformed(String what) {
        return new InvalidRequestException("malformed metadata: " + what);
    }
}
