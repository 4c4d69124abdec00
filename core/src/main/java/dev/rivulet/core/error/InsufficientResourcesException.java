package dev.rivulet.core.error;

import org.jspecify.annotations.Nullable;

/**
 * A resource Rivulet needs right now is exhausted (registered memory, queue slots) and did not become available in
 * time. Retryable: the same request may succeed once other operations have given their resources back.
 */
public class InsufficientResourcesException extends TransportException implements Retryable {

    public InsufficientResourcesException(String message) {
        super(message);
    }

    public InsufficientResourcesException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
