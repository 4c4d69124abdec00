package dev.rivulet.core.handshake;

import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.security.SecuritySettings;
import dev.rivulet.core.error.AuthenticationException;
import dev.rivulet.core.error.ConnectionRefusedException;
import dev.rivulet.core.error.HandshakeException;
import dev.rivulet.core.error.TransportException;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;

import static dev.rivulet.core.handshake.HandshakeMessages.*;

/**
 * The first exchange on every connection a Rivulet listener accepts, whatever the transport: a versioned hello,
 * then, when a shared secret is configured, mutual proof of it, then the transport's own parameters (which are sent
 * only to a peer that has proved itself: a libfabric endpoint name, for one). See {@link HandshakeMessages} for the
 * byte form.
 *
 * <p>Authentication is a challenge-response over both sides' fresh 32-byte nonces: each side sends
 * HMAC-SHA256(secret, label | SHA-256 of everything exchanged so far), with a different label per direction, so a
 * proof cannot be replayed on another connection or reflected back, and the secret never crosses the wire. Proofs are
 * compared in constant time. A side configured with a secret accepts only a peer that proves the same secret; a side
 * without one refuses a peer that demands one. The secret authenticates the set-up; it does not encrypt what follows
 * (configure TLS for that, {@link SecuritySettings#tls}).
 *
 * <p>Both methods throw only {@link TransportException}s: {@link AuthenticationException} for a failed proof,
 * {@link HandshakeException} for an incompatible or malformed peer, {@link ConnectionRefusedException} for a refusal,
 * a timeout or a connection that ended during the exchange.
 */
public final class Handshake {

    /** The protocol version this code speaks. */
    public static final int VERSION = 1;

    /** Transport kinds named in the hello, so a peer of another transport is told apart at once. */
    public static final int KIND_FABRIC = 1;
    public static final int KIND_STREAM = 2;
    public static final int KIND_SHM = 3;

    private static final byte[] CLIENT_LABEL = "RVLT/1 client proof".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SERVER_LABEL = "RVLT/1 server proof".getBytes(StandardCharsets.US_ASCII);
    private static final SecureRandom NONCES = new SecureRandom();

    private Handshake() {
    }

    /** The server side's decisions. */
    public interface Responder {

        /**
         * Null when this listener serves a client with these service parameters (from its hello, before any
         * authentication), else the reason it does not (the client gets an INCOMPATIBLE refusal).
         */
        default String checkService(byte[] service) {
            return null;
        }

        /**
         * The ACCEPT body answering an authenticated client's parameters. Throw a {@link TransportException} to
         * refuse: its message goes to the client ({@link ConnectionRefusedException} as BUSY when retryable, else
         * POLICY; {@link HandshakeException} as INCOMPATIBLE).
         */
        byte[] accept(byte[] clientParams);
    }

    /**
     * Runs the client side: hello with {@code service}, proofs when {@code settings} has a secret, then
     * {@code params}. Returns the server's ACCEPT body.
     */
    public static byte[] client(HandshakeIo io, SecuritySettings settings, int kind, byte[] service, byte[] params) {
        Transcript t = new Transcript(io);
        try {
            byte[] nonce = nonce();
            t.send(CLIENT_HELLO, clientHello(new ClientHello(VERSION, VERSION, kind, settings.authenticates(), nonce,
                    service)));
            Message m = t.receive();
            ServerHello sh = parseServerHello(expect(m, SERVER_HELLO).body());
            if (sh.version() != VERSION) {
                throw new HandshakeException("peer answered with protocol version " + sh.version() + ", this side "
                        + "speaks " + VERSION);
            }
            if (settings.authenticates() && !sh.requiresSecret()) {
                refuseQuietly(t, AUTHENTICATION, "this side requires a shared secret");
                throw new AuthenticationException("peer does not prove a shared secret; this side requires one");
            }
            if (!settings.authenticates() && sh.requiresSecret()) {
                throw new AuthenticationException("peer requires a shared secret; none is configured here");
            }
            if (settings.authenticates()) {
                t.send(CLIENT_PROOF, t.mac(Internals.security().secret(settings), CLIENT_LABEL));
                byte[] expected = t.mac(Internals.security().secret(settings), SERVER_LABEL);
                byte[] proof = parseProof(expect(t.receive(), SERVER_PROOF).body());
                if (!MessageDigest.isEqual(expected, proof)) {
                    throw new AuthenticationException("peer failed to prove the shared secret");
                }
            }
            t.send(CLIENT_PARAMS, params);
            return expect(t.receive(), ACCEPT).body();
        } catch (IOException e) {
            throw ioFailure(e, settings);
        }
    }

    /**
     * Runs the server side and returns the client's parameters once ACCEPT is sent. Anything refused is told to
     * the client (a REFUSE message, best effort) before this method throws.
     */
    public static byte[] server(HandshakeIo io, SecuritySettings settings, int kind, Responder responder) {
        Transcript t = new Transcript(io);
        try {
            ClientHello ch = parseClientHello(expect(t.receive(), CLIENT_HELLO).body());
            if (VERSION < ch.minVersion() || VERSION > ch.maxVersion()) {
                throw refuse(t, INCOMPATIBLE, new HandshakeException("client offers protocol versions "
                        + ch.minVersion() + ".." + ch.maxVersion() + "; this listener speaks " + VERSION));
            }
            if (ch.kind() != kind) {
                throw refuse(t, INCOMPATIBLE, new HandshakeException("client speaks transport kind " + ch.kind()
                        + "; this listener is kind " + kind));
            }
            String why = responder.checkService(ch.service());
            if (why != null) {
                throw refuse(t, INCOMPATIBLE, new HandshakeException(why));
            }
            if (settings.authenticates() && !ch.provesSecret()) {
                throw refuse(t, AUTHENTICATION, new AuthenticationException("this listener requires a shared "
                        + "secret"));
            }
            t.send(SERVER_HELLO, serverHello(new ServerHello(VERSION, settings.authenticates(), nonce())));
            if (settings.authenticates()) {
                byte[] expected = t.mac(Internals.security().secret(settings), CLIENT_LABEL);
                byte[] proof = parseProof(expect(t.receive(), CLIENT_PROOF).body());
                if (!MessageDigest.isEqual(expected, proof)) {
                    throw refuse(t, AUTHENTICATION, new AuthenticationException("authentication failed"));
                }
                t.send(SERVER_PROOF, t.mac(Internals.security().secret(settings), SERVER_LABEL));
            }
            byte[] params = expect(t.receive(), CLIENT_PARAMS).body();
            byte[] reply;
            try {
                reply = responder.accept(params);
            } catch (TransportException e) {
                int code = e instanceof HandshakeException ? INCOMPATIBLE
                        : e instanceof AuthenticationException ? AUTHENTICATION
                        : e.isRetryable() ? BUSY : POLICY;
                throw refuse(t, code, e);
            }
            t.send(ACCEPT, reply);
            return params;
        } catch (IOException e) {
            throw ioFailure(e, settings);
        }
    }

    /** Tells the peer why (best effort) and returns {@code e} to throw. */
    private static TransportException refuse(Transcript t, int code, TransportException e) {
        refuseQuietly(t, code, e.getMessage());
        return e;
    }

    private static void refuseQuietly(Transcript t, int code, String reason) {
        try {
            t.io.write(frame(REFUSE, HandshakeMessages.refuse(new Refuse(code, String.valueOf(reason)))));
        } catch (IOException | RuntimeException ignored) {
            // the peer is gone or not listening: the refusal was a courtesy
        }
    }

    private static Message expect(Message m, int type) {
        if (m.type() == REFUSE) {
            Refuse r = parseRefuse(m.body());
            String text = "peer refused the connection: " + r.reason();
            throw switch (r.code()) {
                case AUTHENTICATION -> new AuthenticationException(text);
                case INCOMPATIBLE -> new HandshakeException(text);
                default -> new ConnectionRefusedException(text);
            };
        }
        if (m.type() != type) {
            throw new HandshakeException("handshake message " + m.type() + " where " + type + " was due");
        }
        return m;
    }

    private static TransportException ioFailure(IOException e, SecuritySettings settings) {
        if (e instanceof SocketTimeoutException) {
            return new ConnectionRefusedException("handshake did not finish within " + settings.handshakeTimeout(), e);
        }
        if (e instanceof EOFException) {
            return new ConnectionRefusedException("peer closed the connection during the handshake", e);
        }
        if (e instanceof javax.net.ssl.SSLHandshakeException) {
            return new AuthenticationException("TLS handshake failed: " + e.getMessage(), e);
        }
        return new ConnectionRefusedException("handshake failed: " + e.getMessage(), e);
    }

    private static byte[] nonce() {
        byte[] n = new byte[NONCE_BYTES];
        NONCES.nextBytes(n);
        return n;
    }

    /** Sends and receives framed messages, hashing every byte of both directions in order. */
    private static final class Transcript {
        private final HandshakeIo io;
        private final MessageDigest hash;

        Transcript(HandshakeIo io) {
            this.io = io;
            try {
                this.hash = MessageDigest.getInstance("SHA-256");
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("SHA-256 is required of every JDK", e);
            }
        }

        void send(int type, byte[] body) throws IOException {
            byte[] f = frame(type, body);
            hash.update(f);
            io.write(f);
        }

        Message receive() throws IOException {
            byte[] header = new byte[HEADER];
            io.readFully(header, 0, HEADER);
            int len = bodyLength(header);
            byte[] body = new byte[len];
            io.readFully(body, 0, len);
            hash.update(header);
            hash.update(body);
            return new Message(header[0] & 0xFF, body);
        }

        /** HMAC-SHA256(secret, label | SHA-256(transcript so far)). */
        byte[] mac(byte[] secret, byte[] label) {
            try {
                byte[] soFar = ((MessageDigest) hash.clone()).digest();
                Mac mac = Mac.getInstance("HmacSHA256");
                mac.init(new SecretKeySpec(secret, "HmacSHA256"));
                mac.update(label);
                return mac.doFinal(soFar);
            } catch (CloneNotSupportedException | GeneralSecurityException e) {
                throw new IllegalStateException("HMAC-SHA256 is required of every JDK", e);
            }
        }
    }
}
