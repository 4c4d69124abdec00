package dev.rivulet.core.error;

/**
 * The responder's handler failed the request (its publisher signalled an error, or it threw): that request, and
 * only that one, ends with this error. The message is the one the responder's error carried.
 */
public class RemoteApplicationException extends TransportException {

    public RemoteApplicationException(String message) {
        super(message);
    }
}
