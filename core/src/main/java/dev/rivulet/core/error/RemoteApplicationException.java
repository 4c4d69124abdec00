package dev.rivulet.core.error;

/**
 * The responder's handler failed the request (its publisher signalled an error, or it threw): that request, and
 * only that one, ends with this error. The message is the one the responder's error carried.
 *
 * <p>A handler that wants its requester to tell failures apart without reading messages fails with this exception
 * and an application-defined {@link #code()} (RSocket's custom error codes: {@value #MIN_CODE} and up); the
 * requester's exception carries the same code. Any other error of a handler arrives with code 0.
 */
public class RemoteApplicationException extends TransportException {

    /** The smallest application-defined code; below it the codes are the protocol's own. */
    public static final int MIN_CODE = 0x301;

    private final int code;

    public RemoteApplicationException(String message) {
        super(message);
        this.code = 0;
    }

    /**
     * A failure with an application-defined {@code code}, at least {@value #MIN_CODE}.
     *
     * @throws InvalidRequestException when the code is below {@value #MIN_CODE}
     */
    public RemoteApplicationException(String message, int code) {
        super(message);
        if (code < MIN_CODE) {
            throw new InvalidRequestException("application error codes start at 0x" + Integer.toHexString(MIN_CODE)
                    + ", got 0x" + Integer.toHexString(code));
        }
        this.code = code;
    }

    /** The application-defined code the responder failed with, or 0 when it gave none. */
    public int code() {
        return code;
    }
}
