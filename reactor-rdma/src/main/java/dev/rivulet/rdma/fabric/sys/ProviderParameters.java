package dev.rivulet.rdma.fabric.sys;

import dev.rivulet.core.sys.Libc;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Provider parameters Rivulet sets before libfabric initialises, each only where the environment does not set it
 * already (an operator's {@code FI_*} variable always wins). libfabric reads these once per process, when it loads
 * its providers (the first {@code fi_getinfo}), and offers no per-endpoint equivalent, so the environment, read
 * through {@code fi_param_get}, is the only place to set them; which is why they are set here, before the library is
 * loaded.
 *
 * <p>All of them size what libfabric 1.17's {@code ofi_rxm} (the RDM layer over the {@code tcp} provider, and over
 * {@code verbs} where it is used) allocates for each RDM endpoint, and a Rivulet endpoint has exactly one peer.
 * rxm's defaults are sized for an MPI rank talking to a thousand peers through one endpoint, and cost tens of MiB per
 * endpoint, zeroed (so resident) when allocated:
 * <ul>
 *   <li>{@code FI_OFI_RXM_MSG_RX_SIZE}: bounce buffers posted to the endpoint's shared receive context, one
 *       {@code FI_OFI_RXM_BUFFER_SIZE} buffer each (default 4096 with tcp: 64 MiB at the default 16 KiB). They only
 *       stage arriving messages until they are matched with the application's receives; when all are in use the tcp
 *       provider stops reading the socket (flow control), so fewer buffers bound memory, not correctness. rxm grows
 *       its buffer pools 1024 buffers at a time, so up to 1024 cost one pool block (see {@link #RXM_BUFFER_SIZE}).</li>
 *   <li>{@code FI_UNIVERSE_SIZE}: rxm sizes each endpoint's internal completion queue for this many peers
 *       (default 1024, times 128 entries each: 131 072 entries of about 50 bytes). The queue spills into an
 *       overflow list when full, so a smaller one is safe; one endpoint here has one peer.</li>
 *   <li>{@code FI_OFI_RXM_BUFFER_SIZE} and {@code FI_OFI_RXM_EAGER_LIMIT}: see {@link #RXM_BUFFER_SIZE} and
 *       {@link #RXM_EAGER_LIMIT}.</li>
 * </ul>
 */
public final class ProviderParameters {

    /**
     * rxm's bounce buffer size. Each rxm endpoint allocates its receive pool, and its send pool once it sends,
     * 1024 buffers at a time and zeroes each block, so an endpoint holds at least 1024 of them per pool: about 2.2 MiB
     * each at 2 KiB, 16.5 MiB at rxm's default 16 KiB. Over tcp, rxm receives a message's header into a bounce buffer
     * and its payload straight into the receive it matches ("dynamic receive buffers"); only a message that arrives
     * before its receive is posted, and rxm's own control messages, are kept in a bounce buffer (an unexpected
     * message larger than one in memory of its own).
     */
    static final String RXM_BUFFER_SIZE = "2048";
    /**
     * rxm's eager limit, kept at its default (the default buffer size): messages up to 16 KiB go in one message,
     * larger ones by rxm's rendezvous, as with rxm's defaults. rxm refuses a connection from a peer whose eager limit
     * differs, so this keeps Rivulet's endpoints reachable by, and able to reach, libfabric programs that run with
     * rxm's defaults. It applies where rxm places payloads directly (tcp); over verbs the eager limit is the buffer
     * size, and peers must set the same {@code FI_OFI_RXM_BUFFER_SIZE}.
     */
    static final String RXM_EAGER_LIMIT = "16384";
    /** Twice a default receive window (128) for the staging buffers; see the class comment. */
    static final String RXM_MSG_RX_SIZE = "256";
    static final String UNIVERSE_SIZE = "64";

    /** What is set, in order. */
    static final Map<String, String> DEFAULTS;

    static {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("FI_OFI_RXM_BUFFER_SIZE", RXM_BUFFER_SIZE);
        m.put("FI_OFI_RXM_EAGER_LIMIT", RXM_EAGER_LIMIT);
        m.put("FI_OFI_RXM_MSG_RX_SIZE", RXM_MSG_RX_SIZE);
        m.put("FI_UNIVERSE_SIZE", UNIVERSE_SIZE);
        DEFAULTS = java.util.Collections.unmodifiableMap(m);
    }

    private ProviderParameters() {
    }

    /** Sets each parameter the environment does not set already; before libfabric is loaded. */
    static void applyDefaults() {
        DEFAULTS.forEach(Libc::setenvIfAbsent);
    }

    /** The bounce buffer size rxm uses in this process: the environment's, or Rivulet's default. */
    public static int rxmBufferSize() {
        String set = System.getenv("FI_OFI_RXM_BUFFER_SIZE");
        try {
            return set != null ? Integer.parseInt(set.trim()) : Integer.parseInt(RXM_BUFFER_SIZE);
        } catch (NumberFormatException e) {
            return Integer.parseInt(RXM_BUFFER_SIZE);
        }
    }

    /** The parameters Rivulet sets where the environment does not, with their values (for diagnostics and docs). */
    public static Map<String, String> defaults() {
        return DEFAULTS;
    }
}
