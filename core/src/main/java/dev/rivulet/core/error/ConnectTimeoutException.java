package dev.rivulet.core.error;

import org.jspecify.annotations.Nullable;

/** A connection was not set up within the time allowed. Retryable: the peer may be reachable later. */
public class ConnectTimeoutException extends TransportException implements Retryable {

    public ConnectTimeoutException(String message) {
        super(message);
    }

    public ConnectTimeoutException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
