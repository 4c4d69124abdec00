package dev.rivulet.core.error;

/** A message exceeds the transport's maximum message size (see Capabilities#maxMessageSize()). */
public class MessageTooLargeException extends InvalidRequestException {

    public MessageTooLargeException(String message) {
        super(message);
    }

    public MessageTooLargeException(String message, Throwable cause) {
        super(message, cause);
    }

    public MessageTooLargeException(String message, String provider, int nativeCode, String nativeMessage, Throwable cause) {
        super(message, provider, nativeCode, nativeMessage, cause);
    }
}
