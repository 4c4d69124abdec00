package dev.rivulet.core.error;

import org.jspecify.annotations.Nullable;

/** No listener answered at the address (nobody bound there yet, or the listener is gone). */
public class ConnectionRefusedException extends TransportException implements Retryable {

    public ConnectionRefusedException(String message) {
        super(message);
    }

    public ConnectionRefusedException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    public ConnectionRefusedException(String message, @Nullable String provider, int nativeCode,
                                      @Nullable String nativeMessage, @Nullable Throwable cause) {
        super(message, provider, nativeCode, nativeMessage, cause);
    }
}
