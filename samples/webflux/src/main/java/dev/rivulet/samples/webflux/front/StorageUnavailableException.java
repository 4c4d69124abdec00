package dev.rivulet.samples.webflux.front;

/** The storage node cannot be reached now (answered with 503; the front keeps reconnecting with backoff). */
public final class StorageUnavailableException extends RuntimeException {

    public StorageUnavailableException(String message) {
        super(message);
    }

    public StorageUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
