package dev.rivulet.samples.webflux.front;

import org.springframework.http.HttpStatus;

/** A request the block service refuses, with the HTTP status that says why. */
public final class BlockException extends RuntimeException {

    private final HttpStatus status;

    public BlockException(HttpStatus status, String message) {
        super(message);
        this.status = status;
    }

    public HttpStatus status() {
        return status;
    }
}
