package dev.rivulet.core.error;

/**
 * The responder did not take the request at all: no handler for its route or its interaction model, or it admits
 * no more requests now (its lease is used up, it is closing). Nothing of the request ran there; a request whose
 * rejection {@link #isRetryable() is retryable} may be repeated later or elsewhere.
 */
public class RequestRejectedException extends TransportException {

    private final boolean retryable;

    public RequestRejectedException(String message, boolean retryable) {
        super(message);
        this.retryable = retryable;
    }

    /** Whether the same request may succeed later (a lease used up, a responder closing), not for a missing route. */
    @Override
    public boolean isRetryable() {
        return retryable;
    }
}
