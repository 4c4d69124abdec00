package dev.rivulet.core.engine.wire;

import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.error.TransportException;

/**
 * What ends a connection when something fails on a wire's receive or completion path: a typed error, never an
 * exception escaping into the loop (a connection must end, not wedge with its completion lost).
 */
public final class WireFailures {

    private WireFailures() {
    }

    /**
     * The typed error for {@code failure} on the way {@code doing} (for example {@code "receiving from"}) the peer at
     * {@code remoteAddress}: a {@link TransportException} as it is; a {@link PeerProtocolViolation} as a
     * {@link CreditProtocolException}, saying the peer broke the {@code protocol}; anything else (a closed arena, a
     * full heap) as a {@link ConnectionLostException} keeping it as the cause.
     */
    public static TransportException typed(Throwable failure, String protocol, String doing, String remoteAddress) {
        if (failure instanceof TransportException te) {
            return te;
        }
        if (failure instanceof PeerProtocolViolation v) {
            return protocolViolated(protocol, v);
        }
        return new ConnectionLostException(doing + " " + remoteAddress + " failed: " + failure, failure);
    }

    /** The error a peer that broke the {@code protocol} ends its connection with. */
    public static CreditProtocolException protocolViolated(String protocol, PeerProtocolViolation v) {
        return new CreditProtocolException(protocol + " protocol violated by the peer: " + v.getMessage());
    }
}
