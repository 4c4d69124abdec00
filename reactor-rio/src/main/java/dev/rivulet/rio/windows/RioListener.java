package dev.rivulet.rio.windows;

import dev.rivulet.core.admission.AdmissionControl;
import dev.rivulet.rio.stream.AcceptingListener;
import dev.rivulet.rio.windows.sys.WinErrorException;
import dev.rivulet.rio.windows.sys.WinsockConstants;
import dev.rivulet.rio.windows.sys.Ws2_32;

/**
 * A listening registered-I/O socket: a blocking {@code accept} on the acceptor thread (accepted sockets inherit
 * {@code WSA_FLAG_REGISTERED_IO}); closing the listening socket ends a blocked accept. Admission, handshakes and the
 * back-off after accept failures ({@code WSAEMFILE}, {@code WSAENOBUFS}) are the shared {@link AcceptingListener}'s.
 *
 * <p>Written against the documented API and compiled, not yet run on Windows (see docs/rio.md).
 */
final class RioListener extends AcceptingListener {

    private final Ws2_32 ws;
    private final long socket;
    private boolean listeningClosed;

    RioListener(RioTransport transport, Ws2_32 ws, long socket, String address) {
        super(transport, address, "rio-accept-");
        this.ws = ws;
        this.socket = socket;
    }

    @Override
    protected long accept() {
        try {
            return ws.accept(socket);
        } catch (WinErrorException e) {
            // WSAECONNRESET: the peer gave up before we accepted; WSAEINTR: a blocking call was cancelled.
            if (!isDisposed() && (e.code() == WinsockConstants.WSAECONNRESET || e.code() == WinsockConstants.WSAEINTR)) {
                return RETRY;
            }
            throw e;
        }
    }

    /** {@code accept(s, NULL, NULL)} does not tell the peer's address; the endpoint names the listener instead. */
    @Override
    protected String remoteName(long accepted) {
        return address() + "#" + Long.toUnsignedString(accepted);
    }

    @Override
    protected Object source(long accepted) {
        return AdmissionControl.sourceOf(ws.remoteAddress(accepted).getAddress());
    }

    /** Winsock has no shutdown for a listening socket: closing it is what makes a blocked accept return. */
    @Override
    protected synchronized void interruptAccept() {
        if (!listeningClosed) {
            listeningClosed = true;
            try {
                ws.closeSocket(socket);
            } catch (WinErrorException ignored) {
                // already closed
            }
        }
    }

    @Override
    protected void closeListening() {
        interruptAccept();
    }
}
