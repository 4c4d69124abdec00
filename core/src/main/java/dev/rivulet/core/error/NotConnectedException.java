package dev.rivulet.core.error;

/**
 * A connection kept by the library ({@code LiveConnection}) is down right now and being set up again. Retryable: a
 * later attempt may find it back.
 */
public class NotConnectedException extends TransportException implements Retryable {

    public NotConnectedException(String message) {
        super(message);
    }
}
