package dev.rivulet.core.error;

import org.jspecify.annotations.Nullable;

/**
 * Base of every failure Rivulet signals. Errors always arrive as {@code onError} signals, never thrown from
 * {@code subscribe}.
 *
 * <p>Native results are preserved: {@link #nativeCode()} is the provider's own code (for libfabric the positive
 * {@code FI_E*} value, for io_uring the errno, 0 where the failure was detected in Java) and {@link #nativeMessage()}
 * its text ({@code fi_strerror}, {@code strerror}, or the provider's error data). {@link #isRetryable()} tells a
 * caller whether repeating the same operation may succeed (a transient condition) or not (closed, bad input).
 */
public class TransportException extends RuntimeException {

    private final @Nullable String provider;
    private final int nativeCode;
    private final @Nullable String nativeMessage;

    public TransportException(String message) {
        this(message, null, 0, null, null);
    }

    public TransportException(String message, @Nullable Throwable cause) {
        this(message, null, 0, null, cause);
    }

    public TransportException(String message, @Nullable String provider, int nativeCode,
                              @Nullable String nativeMessage, @Nullable Throwable cause) {
        super(compose(message, provider, nativeCode, nativeMessage), cause);
        this.provider = provider;
        this.nativeCode = nativeCode;
        this.nativeMessage = nativeMessage;
    }

    private static String compose(String message, @Nullable String provider, int nativeCode,
                                  @Nullable String nativeMessage) {
        if (provider == null && nativeCode == 0 && nativeMessage == null) {
            return message;
        }
        StringBuilder sb = new StringBuilder(message).append(" [");
        if (provider != null) {
            sb.append(provider).append(' ');
        }
        sb.append("code=").append(nativeCode);
        if (nativeMessage != null) {
            sb.append(": ").append(nativeMessage);
        }
        return sb.append(']').toString();
    }

    /** Name of the provider that reported the failure, or {@code null} when Rivulet detected it itself. */
    public @Nullable String provider() {
        return provider;
    }

    /** The provider's native code (0 when the failure was detected before reaching native code). */
    public int nativeCode() {
        return nativeCode;
    }

    /** The provider's text for {@link #nativeCode()}, or {@code null}. */
    public @Nullable String nativeMessage() {
        return nativeMessage;
    }

    /** Whether the same operation may succeed if tried again later. */
    public boolean isRetryable() {
        return this instanceof Retryable;
    }
}
