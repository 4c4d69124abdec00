package dev.rivulet.core.error;

import org.jspecify.annotations.Nullable;

/** The requested transport cannot run here (library missing, no device, wrong OS); the message says why. */
public class TransportUnavailableException extends TransportException {

    public TransportUnavailableException(String message) {
        super(message);
    }

    public TransportUnavailableException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    public TransportUnavailableException(String message, @Nullable String provider, int nativeCode,
                                         @Nullable String nativeMessage, @Nullable Throwable cause) {
        super(message, provider, nativeCode, nativeMessage, cause);
    }
}
