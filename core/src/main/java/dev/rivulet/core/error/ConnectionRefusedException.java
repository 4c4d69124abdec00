package dev.rivulet.core.error;

/** No listener answered at the address (nobody bound there yet, or the listener is gone). */
public class ConnectionRefusedException extends TransportException implements Retryable {

    public ConnectionRefusedException(String message) {
        super(message);
    }

    public ConnectionRefusedException(String message, Throwable cause) {
        super(message, cause);
    }

    public ConnectionRefusedException(String message, String provider, int nativeCode, String nativeMessage, Throwable cause) {
        super(message, provider, nativeCode, nativeMessage, cause);
    }
}
