package dev.rivulet.core.error;

import org.jspecify.annotations.Nullable;

/** Local memory is not usable for the operation: not registered, heap memory, deregistered, or out of the region's bounds. */
public class InvalidMemoryException extends TransportException {

    public InvalidMemoryException(String message) {
        super(message);
    }

    public InvalidMemoryException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    public InvalidMemoryException(String message, @Nullable String provider, int nativeCode,
                                  @Nullable String nativeMessage, @Nullable Throwable cause) {
        super(message, provider, nativeCode, nativeMessage, cause);
    }
}
