package dev.rivulet.core.error;

import org.jspecify.annotations.Nullable;

/** A native provider call failed with a code Rivulet has no more specific type for. */
public class ProviderException extends TransportException {

    public ProviderException(String message) {
        super(message);
    }

    public ProviderException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    public ProviderException(String message, @Nullable String provider, int nativeCode,
                             @Nullable String nativeMessage, @Nullable Throwable cause) {
        super(message, provider, nativeCode, nativeMessage, cause);
    }
}
