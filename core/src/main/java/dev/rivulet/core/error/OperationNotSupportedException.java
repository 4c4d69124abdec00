package dev.rivulet.core.error;

import org.jspecify.annotations.Nullable;

/** The transport does not offer this operation (see Capabilities); fails fast instead of emulating silently. */
public class OperationNotSupportedException extends TransportException {

    public OperationNotSupportedException(String message) {
        super(message);
    }

    public OperationNotSupportedException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    public OperationNotSupportedException(String message, @Nullable String provider, int nativeCode,
                                          @Nullable String nativeMessage, @Nullable Throwable cause) {
        super(message, provider, nativeCode, nativeMessage, cause);
    }
}
