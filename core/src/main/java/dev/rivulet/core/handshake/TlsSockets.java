package dev.rivulet.core.handshake;

import dev.rivulet.core.security.SecuritySettings;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.List;

/**
 * TLS layered over an already connected {@link Socket} (the libfabric bootstrap channel), with the handshake bounded
 * by the connection set-up's deadline. TLS 1.3 only; a listener requires a client certificate unless
 * {@link SecuritySettings#tlsClientAuth} is off; a client checks that the server certificate names the host it
 * dialled unless {@link SecuritySettings#verifyHostname} is off.
 */
public final class TlsSockets {

    private TlsSockets() {
    }

    /** The client side of TLS over {@code plain}, handshake done. Closes {@code plain} with the result. */
    public static SSLSocket client(Socket plain, SecuritySettings s, String host, int port, long deadlineNanos)
            throws IOException {
        SSLSocket tls = (SSLSocket) s.tls().getSocketFactory().createSocket(plain, host, port, true);
        tls.setUseClientMode(true);
        SSLParameters p = tls.getSSLParameters();
        p.setProtocols(new String[]{"TLSv1.3"});
        if (s.verifyHostname()) {
            p.setEndpointIdentificationAlgorithm("HTTPS");
            if (!host.isEmpty() && !Character.isDigit(host.charAt(0)) && !host.contains(":")) {
                p.setServerNames(List.of(new SNIHostName(host)));
            }
        }
        tls.setSSLParameters(p);
        handshake(tls, deadlineNanos);
        return tls;
    }

    /** The server side of TLS over {@code plain}, handshake done. Closes {@code plain} with the result. */
    public static SSLSocket server(Socket plain, SecuritySettings s, long deadlineNanos) throws IOException {
        SSLSocket tls = (SSLSocket) s.tls().getSocketFactory().createSocket(plain, null, true); // server mode
        SSLParameters p = tls.getSSLParameters();
        p.setProtocols(new String[]{"TLSv1.3"});
        p.setNeedClientAuth(s.tlsClientAuth());
        tls.setSSLParameters(p);
        handshake(tls, deadlineNanos);
        return tls;
    }

    private static void handshake(SSLSocket tls, long deadlineNanos) throws IOException {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
            throw new SocketTimeoutException("handshake deadline passed");
        }
        tls.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, left / 1_000_000)));
        tls.startHandshake();
    }
}
