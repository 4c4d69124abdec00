package dev.rivulet.core.error;

import org.jspecify.annotations.Nullable;

/** The request itself is malformed: a null argument, a negative length or offset, a misaligned atomic target. */
public class InvalidRequestException extends TransportException {

    public InvalidRequestException(String message) {
        super(message);
    }

    public InvalidRequestException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    public InvalidRequestException(String message, @Nullable String provider, int nativeCode,
                                   @Nullable String nativeMessage, @Nullable Throwable cause) {
        super(message, provider, nativeCode, nativeMessage, cause);
    }
}
