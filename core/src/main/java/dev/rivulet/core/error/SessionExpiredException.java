package dev.rivulet.core.error;

import org.jspecify.annotations.Nullable;

/**
 * A resumable session ended because it could not be resumed: no connection came back within its session timeout, or
 * the peer does not know the session (it expired there, the peer process restarted, or the token was never issued).
 * Every operation pending on the session ends with this; a new session must be set up. Not retryable.
 */
public class SessionExpiredException extends ConnectionLostException {

    public SessionExpiredException(String message) {
        super(message);
    }

    public SessionExpiredException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
