package dev.rivulet.core.handshake;

import dev.rivulet.core.security.SecuritySettings;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * TLS 1.3 through an {@link SSLEngine} over a raw {@link HandshakeIo}: the TLS handshake, then a {@code HandshakeIo}
 * of decrypted bytes for the connection handshake that follows. For transports whose data path is not a Java socket
 * (io_uring, RIO): once set-up is done, {@link #engine()} carries on in the transport's own channel.
 *
 * <p>Reads take exactly one TLS record at a time from the raw channel (a 5-byte record header, then its length), so
 * nothing beyond the last record the set-up needed is ever read from the socket: the data path starts on a record
 * boundary with nothing left behind.
 */
public final class TlsEngineIo implements HandshakeIo {

    private static final int RECORD_HEADER = 5;

    private final HandshakeIo raw;
    private final SSLEngine engine;
    private final ByteBuffer netIn;
    private final ByteBuffer netOut;
    private final ByteBuffer appIn;

    private TlsEngineIo(HandshakeIo raw, SSLEngine engine) {
        this.raw = raw;
        this.engine = engine;
        int packet = engine.getSession().getPacketBufferSize();
        int app = engine.getSession().getApplicationBufferSize();
        this.netIn = ByteBuffer.allocate(packet);
        this.netOut = ByteBuffer.allocate(packet);
        this.appIn = ByteBuffer.allocate(app);
        this.appIn.flip();
    }

    /** The client side: TLS handshake done over {@code raw} toward {@code host}. */
    public static TlsEngineIo client(HandshakeIo raw, SecuritySettings s, String host, int port) throws IOException {
        SSLEngine e = s.tls().createSSLEngine(host, port);
        e.setUseClientMode(true);
        SSLParameters p = e.getSSLParameters();
        p.setProtocols(new String[]{"TLSv1.3"});
        if (s.verifyHostname()) {
            p.setEndpointIdentificationAlgorithm("HTTPS");
            if (!host.isEmpty() && !Character.isDigit(host.charAt(0)) && !host.contains(":")) {
                p.setServerNames(List.of(new SNIHostName(host)));
            }
        }
        e.setSSLParameters(p);
        TlsEngineIo io = new TlsEngineIo(raw, e);
        io.handshake();
        return io;
    }

    /** The server side: TLS handshake done over {@code raw}. */
    public static TlsEngineIo server(HandshakeIo raw, SecuritySettings s) throws IOException {
        SSLEngine e = s.tls().createSSLEngine();
        e.setUseClientMode(false);
        SSLParameters p = e.getSSLParameters();
        p.setProtocols(new String[]{"TLSv1.3"});
        p.setNeedClientAuth(s.tlsClientAuth());
        e.setSSLParameters(p);
        TlsEngineIo io = new TlsEngineIo(raw, e);
        io.handshake();
        return io;
    }

    /** The engine, handshake done, for the transport's data path. */
    public SSLEngine engine() {
        return engine;
    }

    private void handshake() throws IOException {
        engine.beginHandshake();
        for (;;) {
            switch (engine.getHandshakeStatus()) {
                case NEED_WRAP -> wrap(ByteBuffer.allocate(0));
                case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> unwrapOneRecord();
                case NEED_TASK -> {
                    Runnable task;
                    while ((task = engine.getDelegatedTask()) != null) {
                        task.run();
                    }
                }
                default -> {
                    return; // FINISHED, NOT_HANDSHAKING
                }
            }
        }
    }

    private void wrap(ByteBuffer src) throws IOException {
        do {
            netOut.clear();
            SSLEngineResult r = wrapChecked(src);
            netOut.flip();
            if (netOut.hasRemaining()) {
                byte[] out = new byte[netOut.remaining()];
                netOut.get(out);
                raw.write(out);
            }
            if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
                throw new EOFException("TLS session closed");
            }
        } while (src.hasRemaining());
    }

    private SSLEngineResult wrapChecked(ByteBuffer src) throws IOException {
        try {
            return engine.wrap(src, netOut);
        } catch (SSLException e) {
            sendAlert();
            throw failure(e);
        }
    }

    /**
     * After a failure the engine holds the fatal alert that says why (an untrusted certificate, say): sent, best
     * effort, so the peer fails with that reason instead of a reset connection.
     */
    private void sendAlert() {
        try {
            ByteBuffer none = ByteBuffer.allocate(0);
            for (int i = 0; i < 4; i++) {
                netOut.clear();
                engine.wrap(none, netOut);
                netOut.flip();
                if (!netOut.hasRemaining()) {
                    return;
                }
                byte[] out = new byte[netOut.remaining()];
                netOut.get(out);
                raw.write(out);
            }
        } catch (IOException | RuntimeException ignored) {
            // the peer is gone or the engine has nothing more to say
        }
    }

    /** Reads one record from the raw channel and unwraps it (application bytes go to {@code appIn}). */
    private void unwrapOneRecord() throws IOException {
        netIn.clear();
        byte[] header = new byte[RECORD_HEADER];
        raw.readFully(header, 0, RECORD_HEADER);
        int type = header[0] & 0xFF;
        if (type < 20 || type > 23 || header[1] != 3) {
            // Not a TLS record (a plain-text peer's hello, say): refuse now, not at the deadline.
            throw new javax.net.ssl.SSLHandshakeException("peer does not speak TLS (record type " + type + ")");
        }
        int len = ((header[3] & 0xFF) << 8) | (header[4] & 0xFF);
        if (len > netIn.capacity() - RECORD_HEADER) {
            throw new SSLException("TLS record of " + len + " bytes exceeds the packet size");
        }
        byte[] body = new byte[len];
        raw.readFully(body, 0, len);
        netIn.put(header).put(body).flip();
        appIn.compact();
        try {
            SSLEngineResult r = engine.unwrap(netIn, appIn);
            if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
                throw new EOFException("peer closed the TLS session");
            }
        } catch (SSLException e) {
            sendAlert();
            throw failure(e);
        } finally {
            appIn.flip();
        }
    }

    private static IOException failure(SSLException e) {
        if (e instanceof javax.net.ssl.SSLHandshakeException) {
            return e;
        }
        return new javax.net.ssl.SSLHandshakeException("TLS failed: " + e.getMessage());
    }

    @Override
    public void write(byte[] bytes) throws IOException {
        wrap(ByteBuffer.wrap(bytes));
    }

    @Override
    public void readFully(byte[] into, int off, int len) throws IOException {
        int done = 0;
        while (done < len) {
            if (!appIn.hasRemaining()) {
                unwrapOneRecord();
                continue;
            }
            int n = Math.min(appIn.remaining(), len - done);
            appIn.get(into, off + done, n);
            done += n;
        }
    }

    /** Whether decrypted bytes were read that the connection handshake did not consume (a protocol error). */
    public boolean hasUnreadData() {
        return appIn.hasRemaining();
    }
}
