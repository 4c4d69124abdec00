package dev.rivulet.core.error;

/** Local memory is not usable for the operation: not registered, heap memory, deregistered, or out of the region's bounds. */
public class InvalidMemoryException extends TransportException {

    public InvalidMemoryException(String message) {
        super(message);
    }

    public InvalidMemoryException(String message, Throwable cause) {
        super(message, cause);
    }

    public InvalidMemoryException(String message, String provider, int nativeCode, String nativeMessage, Throwable cause) {
        super(message, provider, nativeCode, nativeMessage, cause);
    }
}
