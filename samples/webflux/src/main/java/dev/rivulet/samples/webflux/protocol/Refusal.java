package dev.rivulet.samples.webflux.protocol;

import dev.rivulet.core.error.RemoteApplicationException;

import java.util.Optional;

/**
 * The storage node refusing one operation: its handler fails with this, and only that request ends. A refusal is a
 * {@link RemoteApplicationException} with an application-defined code per {@link Reason}, so the requester's
 * exception carries the reason as its {@code code()} and {@link #of(RemoteApplicationException)} reads it back.
 */
public final class Refusal extends RemoteApplicationException {

    /** Why an operation was refused; each has its own application error code. */
    public enum Reason {
        NOT_FOUND, TOO_LARGE, FULL, BAD_REQUEST;

        int code() {
            return MIN_CODE + ordinal();
        }
    }

    private final Reason reason;

    public Refusal(Reason reason, String text) {
        super(text, reason.code());
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }

    /** What was refused. */
    public String text() {
        return getMessage();
    }

    /** The refusal a responder's error carried, if it was one (not, say, a bug on the storage node). */
    public static Optional<Refusal> of(RemoteApplicationException e) {
        for (Reason r : Reason.values()) {
            if (r.code() == e.code()) {
                return Optional.of(new Refusal(r, e.getMessage()));
            }
        }
        return Optional.empty();
    }
}
