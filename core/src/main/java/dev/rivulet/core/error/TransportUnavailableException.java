package dev.rivulet.core.error;

/** The requested transport cannot run here (library missing, no device, wrong OS); the message says why. */
public class TransportUnavailableException extends TransportException {

    public TransportUnavailableException(String message) {
        super(message);
    }

    public TransportUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }

    public TransportUnavailableException(String message, String provider, int nativeCode, String nativeMessage, Throwable cause) {
        super(message, provider, nativeCode, nativeMessage, cause);
    }
}
