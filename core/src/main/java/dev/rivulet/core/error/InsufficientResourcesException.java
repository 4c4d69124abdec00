package dev.rivulet.core.error;

/**
 * A resource Rivulet needs right now is exhausted (registered memory, queue slots) and did not become available in
 * time. Retryable: the same request may succeed once other operations have given their resources back.
 */
public class InsufficientResourcesException extends TransportException implements Retryable {

    public InsufficientResourcesException(String message) {
        super(message);
    }

    public InsufficientResourcesException(String message, Throwable cause) {
        super(message, cause);
    }
}
