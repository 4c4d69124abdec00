package dev.rivulet.rdma.fabric;

import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.ProviderException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.rdma.fabric.sys.Libfabric;

import static dev.rivulet.rdma.fabric.sys.FiConstants.FI_ECONNREFUSED;
import static dev.rivulet.rdma.fabric.sys.FiConstants.FI_ECONNRESET;
import static dev.rivulet.rdma.fabric.sys.FiConstants.FI_EHOSTUNREACH;
import static dev.rivulet.rdma.fabric.sys.FiConstants.FI_ENOENT;
import static dev.rivulet.rdma.fabric.sys.FiConstants.FI_ENOTCONN;

/** The exceptions a failed libfabric call becomes, the same for the data path and the set-up. */
final class FabricErrors {

    /** Linux EPIPE; libfabric passes errno values through (FiConstants has no FI_EPIPE). */
    static final int EPIPE = 32;

    private FabricErrors() {
    }

    /**
     * A failed call (negative {@code rc}): an unreachable peer is a lost connection, anything else a provider error.
     */
    static TransportException ofCall(String provider, String call, long rc) {
        int code = (int) -rc;
        return switch (code) {
            case FI_ENOENT, FI_ENOTCONN, FI_ECONNREFUSED, FI_ECONNRESET, EPIPE, FI_EHOSTUNREACH ->
                    new ConnectionLostException(call + ": peer unreachable", provider, code,
                            Libfabric.strerror(code), null);
            default -> new ProviderException(call + " failed", provider, code, Libfabric.strerror(code), null);
        };
    }
}
