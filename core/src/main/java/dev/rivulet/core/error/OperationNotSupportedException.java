package dev.rivulet.core.error;

/** The transport does not offer this operation (see Capabilities); fails fast instead of emulating silently. */
public class OperationNotSupportedException extends TransportException {

    public OperationNotSupportedException(String message) {
        super(message);
    }

    public OperationNotSupportedException(String message, Throwable cause) {
        super(message, cause);
    }

    public OperationNotSupportedException(String message, String provider, int nativeCode, String nativeMessage, Throwable cause) {
        super(message, provider, nativeCode, nativeMessage, cause);
    }
}
