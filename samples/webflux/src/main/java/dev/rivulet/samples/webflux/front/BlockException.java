package dev.rivulet.samples.webflux.front;

import dev.rivulet.samples.webflux.protocol.Refusal;
import org.springframework.http.HttpStatus;

/** A request the block service refuses, with the HTTP status that says why. */
public final class BlockException extends RuntimeException {

    private final HttpStatus status;

    public BlockException(HttpStatus status, String message) {
        super(message);
        this.status = status;
    }

    /** The storage node's refusal of one request, with the status that says why. */
    public static BlockException refused(Refusal r) {
        return new BlockException(switch (r.reason()) {
            case NOT_FOUND -> HttpStatus.NOT_FOUND;
            case TOO_LARGE -> HttpStatus.CONTENT_TOO_LARGE;
            case FULL -> HttpStatus.INSUFFICIENT_STORAGE;
            case BAD_REQUEST -> HttpStatus.BAD_REQUEST;
        }, r.text());
    }

    public HttpStatus status() {
        return status;
    }
}
