package dev.rivulet.core.error;

/** The target refused a remote memory access: unknown or forged key, out of bounds, access rights, or a region that was deregistered. */
public class RemoteAccessException extends TransportException {

    public RemoteAccessException(String message) {
        super(message);
    }

    public RemoteAccessException(String message, Throwable cause) {
        super(message, cause);
    }

    public RemoteAccessException(String message, String provider, int nativeCode, String nativeMessage, Throwable cause) {
        super(message, provider, nativeCode, nativeMessage, cause);
    }
}
