package dev.rivulet.core.interaction;

import dev.rivulet.core.error.InvalidRequestException;
import org.jspecify.annotations.Nullable;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What travels with a payload besides its data: the route a responder dispatches on, the data's content type,
 * string headers (W3C trace context, propagated Reactor {@code Context} entries, anything the application adds) and
 * opaque application metadata. Immutable; {@link #EMPTY} costs nothing on the wire.
 */
public final class Metadata {

    /** No metadata at all. */
    public static final Metadata EMPTY = new Metadata(null, null, Map.of(), null);

    /** Longest route, content type, header key or value, in UTF-8 bytes. */
    public static final int MAX_STRING = 0xFFFF;

    private final @Nullable String route;
    private final @Nullable String contentType;
    private final Map<String, String> headers;
    private final byte @Nullable [] application;

    Metadata(@Nullable String route, @Nullable String contentType, Map<String, String> headers,
             byte @Nullable [] application) {
        this.route = route;
        this.contentType = contentType;
        this.headers = headers;
        this.application = application;
    }

    /** Metadata naming only a route. */
    public static Metadata route(String route) {
        return builder().route(route).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this metadata. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.route = route;
        b.contentType = contentType;
        b.headers.putAll(headers);
        b.application = application;
        return b;
    }

    /** The route a responder dispatches on, or null. */
    public @Nullable String route() {
        return route;
    }

    /** The data's content type (a MIME type such as {@code application/json}), or null. */
    public @Nullable String contentType() {
        return contentType;
    }

    /** The headers, in the order they were added (unmodifiable). */
    public Map<String, String> headers() {
        return headers;
    }

    /** One header, or null. */
    public @Nullable String header(String key) {
        return headers.get(key);
    }

    /** The opaque application metadata (a copy), or null. */
    public byte @Nullable [] application() {
        return application == null ? null : application.clone();
    }

    byte @Nullable [] applicationUnsafe() {
        return application;
    }

    public boolean isEmpty() {
        return route == null && contentType == null && headers.isEmpty() && application == null;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Metadata m && Objects.equals(route, m.route) && Objects.equals(contentType, m.contentType)
                && headers.equals(m.headers) && Arrays.equals(application, m.application);
    }

    @Override
    public int hashCode() {
        return Objects.hash(route, contentType, headers, Arrays.hashCode(application));
    }

    @Override
    public String toString() {
        return "Metadata[route=" + route + ", contentType=" + contentType + ", headers=" + headers
                + (application == null ? "" : ", application=" + application.length + " B") + "]";
    }

    /** Builds {@link Metadata}; strings are checked against {@link #MAX_STRING} here, not on the wire. */
    public static final class Builder {

        private @Nullable String route;
        private @Nullable String contentType;
        private final Map<String, String> headers = new LinkedHashMap<>();
        private byte @Nullable [] application;

        private Builder() {
        }

        public Builder route(@Nullable String route) {
            this.route = route == null ? null : checked("route", route);
            return this;
        }

        public Builder contentType(@Nullable String contentType) {
            this.contentType = contentType == null ? null : checked("content type", contentType);
            return this;
        }

        /** Adds or replaces a header. */
        public Builder header(String key, String value) {
            headers.put(checked("header key", key), checked("header value", value));
            return this;
        }

        /** Opaque application metadata (copied). */
        public Builder application(byte @Nullable [] bytes) {
            this.application = bytes == null ? null : bytes.clone();
            return this;
        }

        public Metadata build() {
            if (route == null && contentType == null && headers.isEmpty() && application == null) {
                return EMPTY;
            }
            Map<String, String> h = headers.isEmpty() ? Map.of()
                    : Collections.unmodifiableMap(new LinkedHashMap<>(headers));
            return new Metadata(route, contentType, h, application);
        }

        private static String checked(String what, String s) {
            Objects.requireNonNull(s, what);
            if (s.length() * 3 > MAX_STRING && s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_STRING) {
                throw new InvalidRequestException(what + " longer than " + MAX_STRING + " bytes");
            }
            return s;
        }
    }
}
