package dev.rivulet.core.error;

import org.jspecify.annotations.Nullable;

/** A message exceeds the transport's maximum message size (see Capabilities#maxMessageSize()). */
public class MessageTooLargeException extends InvalidRequestException {

    public MessageTooLargeException(String message) {
        super(message);
    }

    public MessageTooLargeException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    public MessageTooLargeException(String message, @Nullable String provider, int nativeCode,
                                    @Nullable String nativeMessage, @Nullable Throwable cause) {
        super(message, provider, nativeCode, nativeMessage, cause);
    }
}
