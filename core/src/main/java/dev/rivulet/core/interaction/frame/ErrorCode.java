package dev.rivulet.core.interaction.frame;

import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.RemoteApplicationException;
import dev.rivulet.core.error.RequestRejectedException;
import dev.rivulet.core.error.TransportException;

/** What an {@link FrameType#ERROR} frame says went wrong, and the typed exception a requester sees for it. */
public final class ErrorCode {

    /** The responder's handler failed. */
    public static final int APPLICATION_ERROR = 1;
    /** Nothing ran: no handler for the route or the model. Not retryable. */
    public static final int REJECTED = 2;
    /** Nothing ran: the responder admits no more requests now (lease, closing). Retryable. */
    public static final int REJECTED_RETRY = 3;
    /** The peer broke the protocol on this stream (more payloads than credits, a frame it may not send). */
    public static final int INVALID = 4;

    private ErrorCode() {
    }

    /**
     * The exception a stream's local subscriber receives for an error frame with {@code code} and {@code message};
     * codes from {@link RemoteApplicationException#MIN_CODE} up are the application's own.
     */
    public static TransportException toException(int code, String message) {
        if (code >= RemoteApplicationException.MIN_CODE) {
            return new RemoteApplicationException(message, code);
        }
        return switch (code) {
            case APPLICATION_ERROR -> new RemoteApplicationException(message);
            case REJECTED -> new RequestRejectedException(message, false);
            case REJECTED_RETRY -> new RequestRejectedException(message, true);
            case INVALID -> new InvalidRequestException("the peer found this stream invalid: " + message);
            default -> new TransportException("stream failed at the peer (code " + code + "): " + message);
        };
    }

    /** The code to send for a local failure {@code t} of a stream. */
    public static int of(Throwable t) {
        if (t instanceof RequestRejectedException r) {
            return r.isRetryable() ? REJECTED_RETRY : REJECTED;
        }
        if (t instanceof RemoteApplicationException a && a.code() >= RemoteApplicationException.MIN_CODE) {
            return a.code();
        }
        return APPLICATION_ERROR;
    }
}
