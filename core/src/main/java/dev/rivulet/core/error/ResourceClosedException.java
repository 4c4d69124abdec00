package dev.rivulet.core.error;

/** The transport, endpoint or memory region was closed before or while the operation ran. */
public class ResourceClosedException extends TransportException {

    public ResourceClosedException(String message) {
        super(message);
    }

    public ResourceClosedException(String message, Throwable cause) {
        super(message, cause);
    }

    public ResourceClosedException(String message, String provider, int nativeCode, String nativeMessage, Throwable cause) {
        super(message, provider, nativeCode, nativeMessage, cause);
    }
}
