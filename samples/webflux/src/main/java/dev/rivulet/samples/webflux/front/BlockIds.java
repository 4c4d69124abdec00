package dev.rivulet.samples.webflux.front;

import org.springframework.http.HttpStatus;
import org.springframework.web.util.UriComponentsBuilder;

import java.net.URI;

/**
 * What a block id may be: 1 to {@value #MAX_LENGTH} characters, each a letter or digit of ASCII or one of
 * {@code - . _ ~} (the characters a URL path carries as they are, RFC 3986's "unreserved"), and not {@code .} or
 * {@code ..} (which clients resolve away as path segments). Every endpoint applies
 * the same rule before anything else, so an id is stored, read and deleted under exactly the name it has in the
 * URL, and nothing a client sends as an id can break the {@code Location} header, a log line or the storage protocol.
 */
public final class BlockIds {

    /** The longest id, in characters (all one byte each): what the storage protocol carries. */
    public static final int MAX_LENGTH = 256;

    private BlockIds() {
    }

    /** {@code id} when it is a valid block id; a 400 saying why when it is not. */
    public static String require(String id) {
        if (id.isEmpty() || id.length() > MAX_LENGTH) {
            throw new BlockException(HttpStatus.BAD_REQUEST, "a block id has 1 to " + MAX_LENGTH
                    + " characters, not " + id.length());
        }
        if (id.equals(".") || id.equals("..")) {
            throw new BlockException(HttpStatus.BAD_REQUEST, "a block id cannot be " + id);
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (!isUnreserved(c)) {
                throw new BlockException(HttpStatus.BAD_REQUEST, "a block id is made of ASCII letters, digits and "
                        + "- . _ ~ only, not U+" + String.format("%04X", (int) c) + " at " + i);
            }
        }
        return id;
    }

    /** Where block {@code id} (a valid one) is, encoded for a {@code Location} header. */
    public static URI location(String id) {
        return UriComponentsBuilder.fromPath("/blocks/{id}").encode().buildAndExpand(require(id)).toUri();
    }

    private static boolean isUnreserved(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || c == '-' || c == '.' || c == '_' || c == '~';
    }
}
