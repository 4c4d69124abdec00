package dev.rivulet.rdma.verbs;

import dev.rivulet.core.engine.OpKind;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.error.InvalidMemoryException;
import dev.rivulet.core.error.MessageTooLargeException;
import dev.rivulet.core.error.ProviderException;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.rdma.verbs.sys.Ibverbs;
import dev.rivulet.rdma.wire.OperationErrors;

import static dev.rivulet.rdma.verbs.sys.VerbsConstants.*;

/**
 * What a failed work completion means to the caller: one typed exception per {@code ibv_wc_status}, carrying the
 * status as native code and {@code ibv_wc_status_str} (with the provider's vendor error) as native text.
 *
 * <ul>
 *   <li>The target refused a one-sided operation ({@code REM_ACCESS_ERR}; {@code REM_INV_REQ_ERR} and
 *       {@code REM_OP_ERR} for a read, write or atomic): {@link RemoteAccessException} with the one refusal text
 *       every transport uses and nothing else in its message, so refusals of an unknown key, a missing right and a
 *       window overrun read the same whatever status the device chose; the status and vendor error are in its cause
 *       (a {@link ProviderException}).</li>
 *   <li>The connection is gone ({@code RETRY_EXC_ERR}: no ack after every retry; {@code RNR_RETRY_EXC_ERR}: the
 *       peer never posted a receive; timeouts, aborts, bad responses, a fatal device error; a send the peer's
 *       receive queue refused): {@link ConnectionLostException}.</li>
 *   <li>Local memory the registration does not cover, or lacks the right for ({@code LOC_PROT_ERR},
 *       {@code LOC_ACCESS_ERR}): {@link InvalidMemoryException}. A send longer than the port carries
 *       ({@code LOC_LEN_ERR}): {@link MessageTooLargeException}.</li>
 *   <li>{@code WR_FLUSH_ERR} is not an outcome of its own: the queue pair went to the error state for another reason
 *       (a failure before it, a disconnect, a close), and the caller reports that cause instead
 *       ({@link #isFlush}).</li>
 *   <li>Anything else: {@link ProviderException}.</li>
 * </ul>
 */
final class CompletionErrors {

    /** The provider name the exceptions carry. */
    static final String PROVIDER = "verbs";

    private CompletionErrors() {
    }

    /** Whether the request was flushed by a queue pair already in the error state, rather than failing itself. */
    static boolean isFlush(int status) {
        return status == IBV_WC_WR_FLUSH_ERR;
    }

    /** The exception for a send, put, get, atomic or flush that completed with {@code status} (not a flush). */
    static TransportException forOperation(OpKind kind, int status, int vendorErr) {
        String text = text(status, vendorErr);
        return switch (status) {
            case IBV_WC_REM_ACCESS_ERR, IBV_WC_REM_INV_REQ_ERR, IBV_WC_REM_OP_ERR ->
                    OperationErrors.refused(kind, PROVIDER, status, text);
            case IBV_WC_RETRY_EXC_ERR -> new ConnectionLostException(kind.tag + " failed: the peer did not "
                    + "acknowledge it after every retry (verbs.retryCount)", PROVIDER, status, text, null);
            case IBV_WC_RNR_RETRY_EXC_ERR -> new ConnectionLostException(kind.tag + " failed: the peer posted no "
                    + "receive buffer in time", PROVIDER, status, text, null);
            case IBV_WC_RESP_TIMEOUT_ERR, IBV_WC_REM_ABORT_ERR, IBV_WC_BAD_RESP_ERR, IBV_WC_FATAL_ERR ->
                    OperationErrors.lost(kind, PROVIDER, status, text);
            case IBV_WC_LOC_PROT_ERR, IBV_WC_LOC_ACCESS_ERR -> new InvalidMemoryException(kind.tag + " failed: the "
                    + "local buffer is not covered by its registration", PROVIDER, status, text, null);
            case IBV_WC_LOC_LEN_ERR -> kind == OpKind.SEND
                    ? new MessageTooLargeException("send failed: longer than the port carries", PROVIDER, status,
                            text, null)
                    : new ProviderException(kind.tag + " failed: local length error", PROVIDER, status, text, null);
            default -> OperationErrors.failed(kind, PROVIDER, status, text);
        };
    }

    /**
     * What ends the endpoint after a request failed with {@code error} ({@code status}): the queue pair is in the
     * error state, so every request behind it fails too. A lost connection is that already; a refusal or any other
     * failure says what put the queue pair there.
     */
    static TransportException queuePairFailed(OpKind kind, TransportException error, int status, int vendorErr) {
        if (error instanceof ConnectionLostException) {
            return error;
        }
        String text = text(status, vendorErr);
        if (error instanceof RemoteAccessException) {
            return OperationErrors.refusalEnded(kind, "the connection's queue pair went to the error state", PROVIDER,
                    status, text);
        }
        return new ConnectionLostException("the connection's queue pair went to the error state after a failed "
                + kind.tag, PROVIDER, status, text, error);
    }

    /**
     * The exception for a receive that completed with {@code status} (not a flush): the connection cannot go on. A
     * message longer than the posted buffers ({@code LOC_LEN_ERR}) breaks the size both peers agreed on.
     */
    static TransportException forReceive(int status, int vendorErr) {
        String text = text(status, vendorErr);
        if (status == IBV_WC_LOC_LEN_ERR) {
            return new CreditProtocolException("the peer sent a message longer than verbs.messageSize", PROVIDER,
                    status, text, null);
        }
        return new ConnectionLostException("receive failed", PROVIDER, status, text, null);
    }

    /** {@code ibv_wc_status_str(status)} with the provider's vendor error. */
    static String text(int status, int vendorErr) {
        return Ibverbs.wcStatusStr(status) + " (vendor error 0x" + Integer.toHexString(vendorErr) + ")";
    }
}
