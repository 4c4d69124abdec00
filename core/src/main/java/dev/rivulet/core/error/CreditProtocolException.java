package dev.rivulet.core.error;

/** The peer violated the credit protocol (sent without a credit or malformed control word); the endpoint is closed. */
public class CreditProtocolException extends TransportException {

    public CreditProtocolException(String message) {
        super(message);
    }

    public CreditProtocolException(String message, Throwable cause) {
        super(message, cause);
    }

    public CreditProtocolException(String message, String provider, int nativeCode, String nativeMessage, Throwable cause) {
        super(message, provider, nativeCode, nativeMessage, cause);
    }
}
