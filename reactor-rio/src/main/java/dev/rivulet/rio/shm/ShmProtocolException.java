package dev.rivulet.rio.shm;

import dev.rivulet.core.engine.wire.PeerProtocolViolation;

/**
 * The peer broke the shared-memory protocol: a ring position it could not have written, a record that does not
 * parse, an answer nobody asked for. The wire ends the connection with a {@code CreditProtocolException}.
 */
final class ShmProtocolException extends PeerProtocolViolation {

    private static final long serialVersionUID = 1L;

    ShmProtocolException(String message) {
        super(message);
    }
}
