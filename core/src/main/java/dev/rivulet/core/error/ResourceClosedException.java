package dev.rivulet.core.error;

import org.jspecify.annotations.Nullable;

/** The transport, endpoint or memory region was closed before or while the operation ran. */
public class ResourceClosedException extends TransportException {

    public ResourceClosedException(String message) {
        super(message);
    }

    public ResourceClosedException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    public ResourceClosedException(String message, @Nullable String provider, int nativeCode,
                                   @Nullable String nativeMessage, @Nullable Throwable cause) {
        super(message, provider, nativeCode, nativeMessage, cause);
    }
}
