package dev.rivulet.core.error;

/** The peer went away or the connection broke; every operation pending on the endpoint ends with this. */
public class ConnectionLostException extends TransportException {

    public ConnectionLostException(String message) {
        super(message);
    }

    public ConnectionLostException(String message, Throwable cause) {
        super(message, cause);
    }

    public ConnectionLostException(String message, String provider, int nativeCode, String nativeMessage, Throwable cause) {
        super(message, provider, nativeCode, nativeMessage, cause);
    }
}
