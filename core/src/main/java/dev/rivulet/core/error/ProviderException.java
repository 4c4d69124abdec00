package dev.rivulet.core.error;

/** A native provider call failed with a code Rivulet has no more specific type for. */
public class ProviderException extends TransportException {

    public ProviderException(String message) {
        super(message);
    }

    public ProviderException(String message, Throwable cause) {
        super(message, cause);
    }

    public ProviderException(String message, String provider, int nativeCode, String nativeMessage, Throwable cause) {
        super(message, provider, nativeCode, nativeMessage, cause);
    }
}
