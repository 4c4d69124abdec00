package dev.rivulet.core.error;

import org.jspecify.annotations.Nullable;

/**
 * The peer could not prove who it is, or would not let us prove who we are: a wrong or missing shared secret, a TLS
 * certificate that was refused, or a peer that does not authenticate while this side requires it. Not retryable:
 * the same peer with the same credentials fails the same way.
 */
public class AuthenticationException extends TransportException {

    public AuthenticationException(String message) {
        super(message);
    }

    public AuthenticationException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
