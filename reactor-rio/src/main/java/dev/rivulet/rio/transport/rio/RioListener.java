package dev.rivulet.rio.transport.rio;

import dev.rivulet.core.Endpoint;
import dev.rivulet.rio.stream.AcceptingListener;
import dev.rivulet.rio.windows.WinErrorException;
import dev.rivulet.rio.windows.WinsockConstants;
import dev.rivulet.rio.windows.Ws2_32;

/**
 * A listening registered-I/O socket: a blocking {@code accept} on the acceptor thread (accepted sockets inherit
 * {@code WSA_FLAG_REGISTERED_IO}); closing the listening socket ends a blocked accept.
 *
 * <p>Written against the documented API and compiled, never run: this machine is Linux (see docs/rio.md).
 */
final class RioListener extends AcceptingListener {

    private final RioTransport transport;
    private final Ws2_32 ws;
    private final long socket;
    private boolean listeningClosed;

    RioListener(RioTransport transport, Ws2_32 ws, long socket, String address) {
        super(address, "rio-accept-");
        this.transport = transport;
        this.ws = ws;
        this.socket = socket;
    }

    @Override
    protected long accept() {
        try {
            return ws.accept(socket);
        } catch (WinErrorException e) {
            // WSAECONNRESET: the peer gave up before we accepted; WSAEINTR: a blocking call was cancelled.
            if (!disposing() && (e.code() == WinsockConstants.WSAECONNRESET || e.code() == WinsockConstants.WSAEINTR)) {
                return RETRY;
            }
            throw e;
        }
    }

    @Override
    protected Endpoint attach(long accepted) {
        ws.setsockopt(accepted, WinsockConstants.IPPROTO_TCP, WinsockConstants.TCP_NODELAY, 1);
        // accept(s, NULL, NULL) does not tell the peer's address; the endpoint names the listener it came through.
        return transport.attach(accepted, address() + "#" + Long.toUnsignedString(accepted));
    }

    @Override
    protected void closeAccepted(long accepted) {
        try {
            ws.closeSocket(accepted);
        } catch (WinErrorException ignored) {
            // gone either way
        }
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
