package dev.rivulet.core.error;

import org.jspecify.annotations.Nullable;

/** The peer violated the credit protocol (sent without a credit or malformed control word); the endpoint is closed. */
public class CreditProtocolException extends TransportException {

    public CreditProtocolException(String message) {
        super(message);
    }

    public CreditProtocolException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    public CreditProtocolException(String message, @Nullable String provider, int nativeCode,
                                   @Nullable String nativeMessage, @Nullable Throwable cause) {
        super(message, provider, nativeCode, nativeMessage, cause);
    }
}
