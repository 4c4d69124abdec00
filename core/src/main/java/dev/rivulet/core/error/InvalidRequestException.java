package dev.rivulet.core.error;

/** The request itself is malformed: a null argument, a negative length or offset, a misaligned atomic target. */
public class InvalidRequestException extends TransportException {

    public InvalidRequestException(String message) {
        super(message);
    }

    public InvalidRequestException(String message, Throwable cause) {
        super(message, cause);
    }

    public InvalidRequestException(String message, String provider, int nativeCode, String nativeMessage, Throwable cause) {
        super(message, provider, nativeCode, nativeMessage, cause);
    }
}
