package dev.rivulet.core;

import dev.rivulet.core.error.TransportException;

/**
 * Why an endpoint closed ({@link Endpoint#closeReason()}).
 *
 * @param kind  who or what ended it
 * @param cause what operations still pending were failed with ({@code ResourceClosedException} for a local close,
 *              {@code ConnectionLostException} for a peer's close or a lost connection, the protocol or provider
 *              error for other failures)
 */
public record CloseReason(Kind kind, TransportException cause) {

    /** Who or what ended an endpoint. */
    public enum Kind {
        /** This side closed it: {@code dispose()}, {@code closeGracefully}, or its transport was disposed. */
        LOCAL,
        /** The peer closed it and said so: a clean end of the conversation. */
        PEER,
        /** The connection failed: the peer vanished, timed out or broke the protocol, or the provider failed. */
        FAILURE
    }

    /** Whether the endpoint ended by a decision of either side rather than by a failure. */
    public boolean isClean() {
        return kind != Kind.FAILURE;
    }
}
