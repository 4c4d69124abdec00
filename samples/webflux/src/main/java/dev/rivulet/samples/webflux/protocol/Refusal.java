package dev.rivulet.samples.webflux.protocol;

import dev.rivulet.core.error.RemoteApplicationException;

import java.util.Locale;
import java.util.Optional;

/**
 * The storage node refusing one operation: its handler fails with this, and only that request ends. The requester
 * sees the failure as a {@link RemoteApplicationException} carrying the message, so the reason travels as the
 * message's first word ({@code "not_found: no block a"}) and {@link #of(RemoteApplicationException)} reads it back.
 */
public final class Refusal extends RuntimeException {

    /** Why an operation was refused. */
    public enum Reason { NOT_FOUND, TOO_LARGE, FULL, BAD_REQUEST }

    private static final String SEPARATOR = ": ";

    private final Reason reason;
    private final String text;

    public Refusal(Reason reason, String text) {
        super(reason.name().toLowerCase(Locale.ROOT) + SEPARATOR + text, null, false, false);
        this.reason = reason;
        this.text = text;
    }

    public Reason reason() {
        return reason;
    }

    /** What was refused, without the reason's word. */
    public String text() {
        return text;
    }

    /** The refusal a responder's error carried, if it was one (not, say, a bug on the storage node). */
    public static Optional<Refusal> of(RemoteApplicationException e) {
        String m = e.getMessage();
        int at = m == null ? -1 : m.indexOf(SEPARATOR);
        if (at < 0) {
            return Optional.empty();
        }
        for (Reason r : Reason.values()) {
            if (r.name().toLowerCase(Locale.ROOT).equals(m.substring(0, at))) {
                return Optional.of(new Refusal(r, m.substring(at + SEPARATOR.length())));
            }
        }
        return Optional.empty();
    }
}
