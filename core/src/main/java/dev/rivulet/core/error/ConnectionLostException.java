package dev.rivulet.core.error;

import org.jspecify.annotations.Nullable;

/** The peer went away or the connection broke; every operation pending on the endpoint ends with this. */
public class ConnectionLostException extends TransportException {

    public ConnectionLostException(String message) {
        super(message);
    }

    public ConnectionLostException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    public ConnectionLostException(String message, @Nullable String provider, int nativeCode,
                                   @Nullable String nativeMessage, @Nullable Throwable cause) {
        super(message, provider, nativeCode, nativeMessage, cause);
    }
}
