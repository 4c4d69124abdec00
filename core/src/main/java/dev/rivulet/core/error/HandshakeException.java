package dev.rivulet.core.error;

import org.jspecify.annotations.Nullable;

/**
 * Connection set-up failed because the two sides cannot talk: the peer is not Rivulet, speaks no common protocol
 * version, runs a different transport configuration, or broke the handshake's format. Not retryable.
 */
public class HandshakeException extends TransportException {

    public HandshakeException(String message) {
        super(message);
    }

    public HandshakeException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
