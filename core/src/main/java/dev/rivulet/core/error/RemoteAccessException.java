package dev.rivulet.core.error;

import org.jspecify.annotations.Nullable;

/** The target refused a remote memory access: unknown or forged key, out of bounds, access rights, or a region that was deregistered. */
public class RemoteAccessException extends TransportException {

    public RemoteAccessException(String message) {
        super(message);
    }

    public RemoteAccessException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    public RemoteAccessException(String message, @Nullable String provider, int nativeCode,
                                 @Nullable String nativeMessage, @Nullable Throwable cause) {
        super(message, provider, nativeCode, nativeMessage, cause);
    }
}
