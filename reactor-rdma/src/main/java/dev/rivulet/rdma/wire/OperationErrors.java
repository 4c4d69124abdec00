package dev.rivulet.rdma.wire;

import dev.rivulet.core.engine.OpKind;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.ProviderException;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.MemoryDomain;

/**
 * The exceptions a failed operation becomes on an RDMA wire, whichever library reported the failure: each wire
 * decides what its native code means (libfabric's {@code FI_E*} values, a verbs work completion status) and builds
 * the exception here, so the same outcome reads the same on both.
 */
public final class OperationErrors {

    private OperationErrors() {
    }

    /**
     * The target refused the operation. A one-sided operation fails with {@link RemoteAccessException} carrying the
     * one refusal text every transport uses and nothing else in its message, so an unknown key, a missing right and
     * a window overrun read the same whatever code the provider chose; the code and the provider's text are in its
     * cause. A send the peer's side refused means the connection is lost.
     */
    public static TransportException refused(OpKind kind, String provider, int code, String text) {
        if (kind == OpKind.SEND) {
            return new ConnectionLostException("send failed: the peer refused the message", provider, code, text,
                    null);
        }
        return new RemoteAccessException(MemoryDomain.REFUSED, new ProviderException("the target refused the "
                + kind.tag, provider, code, text, null));
    }

    /** The connection died under the operation (a reset, a timeout, a peer that stopped answering). */
    public static ConnectionLostException lost(OpKind kind, String provider, int code, String text) {
        return new ConnectionLostException(kind.tag + " failed: connection lost", provider, code, text, null);
    }

    /** Anything the wire has no better name for. */
    public static ProviderException failed(OpKind kind, String provider, int code, String text) {
        return new ProviderException(kind.tag + " failed", provider, code, text, null);
    }

    /**
     * What ends the connection after the target refused a {@code kind} operation, where the provider's connection
     * does not survive a refusal ({@code how} says what happened to it): whatever is posted next would fail at
     * random, so the endpoint closes now, once.
     */
    public static ConnectionLostException refusalEnded(OpKind kind, String how, String provider, int code,
                                                       String text) {
        return new ConnectionLostException(how + " after a refused " + kind.tag + "; the endpoint is closed",
                provider, code, text, null);
    }
}
