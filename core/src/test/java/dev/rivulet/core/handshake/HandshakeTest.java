package dev.rivulet.core.handshake;

import dev.rivulet.core.security.SecuritySettings;
import dev.rivulet.conformance.TestCertificates;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.error.AuthenticationException;
import dev.rivulet.core.error.ConnectionRefusedException;
import dev.rivulet.core.error.HandshakeException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.TransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The connection handshake over real loopback sockets, both sides in this JVM. */
@Timeout(30)
class HandshakeTest {

    private static final byte[] SECRET = "correct horse battery staple".getBytes(StandardCharsets.UTF_8);
    private static final byte[] OTHER = "incorrect horse battery staple".getBytes(StandardCharsets.UTF_8);

    private final ServerSocket listener = listen();

    @AfterEach
    void close() throws IOException {
        listener.close();
    }

    private static ServerSocket listen() {
        try {
            return new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The outcome of one side: its result or its failure. */
    private record Outcome(byte[] value, Throwable error) {
    }

    private record Both(Outcome client, Outcome server) {
    }

    private Both run(SecuritySettings clientSettings, SecuritySettings serverSettings, int clientKind,
                     Handshake.Responder responder) throws Exception {
        CompletableFuture<Outcome> server = CompletableFuture.supplyAsync(() -> {
            try (Socket s = listener.accept()) {
                long deadline = System.nanoTime() + serverSettings.handshakeTimeout().toNanos();
                Socket io = serverSettings.usesTls() ? TlsSockets.server(s, serverSettings, deadline) : s;
                return new Outcome(Handshake.server(new SocketHandshakeIo(io, deadline), serverSettings,
                        Handshake.KIND_STREAM, responder), null);
            } catch (Throwable t) {
                return new Outcome(null, t);
            }
        });
        Outcome client;
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), listener.getLocalPort())) {
            long deadline = System.nanoTime() + clientSettings.handshakeTimeout().toNanos();
            Socket io = clientSettings.usesTls()
                    ? TlsSockets.client(s, clientSettings, "localhost", listener.getLocalPort(), deadline) : s;
            client = new Outcome(Handshake.client(new SocketHandshakeIo(io, deadline), clientSettings, clientKind,
                    "svc".getBytes(), "client-params".getBytes()), null);
        } catch (Throwable t) {
            client = new Outcome(null, t);
        }
        return new Both(client, server.get(20, TimeUnit.SECONDS));
    }

    private static Handshake.Responder accepting(Function<byte[], byte[]> reply) {
        return reply::apply;
    }

    @Test
    void plainHandshakeExchangesParameters() throws Exception {
        Both b = run(SecuritySettings.defaults(), SecuritySettings.defaults(), Handshake.KIND_STREAM,
                accepting(p -> ("hello " + new String(p)).getBytes()));
        assertThat(b.client().error()).isNull();
        assertThat(new String(b.client().value())).isEqualTo("hello client-params");
        assertThat(new String(b.server().value())).isEqualTo("client-params");
    }

    @Test
    void matchingSecretsAuthenticateBothWays() throws Exception {
        SecuritySettings s = SecuritySettings.defaults().secret(SECRET);
        Both b = run(s, s, Handshake.KIND_STREAM, accepting(p -> new byte[]{42}));
        assertThat(b.client().error()).isNull();
        assertThat(b.client().value()).containsExactly(42);
    }

    @Test
    void aWrongSecretFailsBothSidesAndTheParametersNeverCross() throws Exception {
        boolean[] asked = new boolean[1];
        Both b = run(SecuritySettings.defaults().secret(OTHER), SecuritySettings.defaults().secret(SECRET),
                Handshake.KIND_STREAM, accepting(p -> {
                    asked[0] = true;
                    return p;
                }));
        assertThat(b.client().error()).isInstanceOf(AuthenticationException.class);
        assertThat(b.server().error()).isInstanceOf(AuthenticationException.class);
        assertThat(asked[0]).as("the responder never saw an unauthenticated client").isFalse();
    }

    @Test
    void aSideWithASecretRefusesAPeerWithout() throws Exception {
        Both serverDemands = run(SecuritySettings.defaults(), SecuritySettings.defaults().secret(SECRET),
                Handshake.KIND_STREAM, accepting(p -> p));
        assertThat(serverDemands.client().error()).isInstanceOf(AuthenticationException.class)
                .hasMessageContaining("requires a shared secret");
        Both clientDemands = run(SecuritySettings.defaults().secret(SECRET), SecuritySettings.defaults(),
                Handshake.KIND_STREAM, accepting(p -> p));
        assertThat(clientDemands.client().error()).isInstanceOf(AuthenticationException.class)
                .hasMessageContaining("does not prove");
        assertThat(clientDemands.server().error()).isInstanceOf(TransportException.class);
    }

    @Test
    void anotherTransportKindOrServiceIsIncompatible() throws Exception {
        Both kind = run(SecuritySettings.defaults(), SecuritySettings.defaults(), Handshake.KIND_FABRIC,
                accepting(p -> p));
        assertThat(kind.client().error()).isInstanceOf(HandshakeException.class).hasMessageContaining("kind");
        Both service = run(SecuritySettings.defaults(), SecuritySettings.defaults(), Handshake.KIND_STREAM,
                new Handshake.Responder() {
                    @Override
                    public String checkService(byte[] s) {
                        return "this listener runs provider tcp";
                    }

                    @Override
                    public byte[] accept(byte[] p) {
                        return p;
                    }
                });
        assertThat(service.client().error()).isInstanceOf(HandshakeException.class)
                .hasMessageContaining("provider tcp");
    }

    @Test
    void aResponderRefusalReachesTheClientTyped() throws Exception {
        Both busy = run(SecuritySettings.defaults(), SecuritySettings.defaults(), Handshake.KIND_STREAM,
                p -> {
                    throw new ConnectionRefusedException("listener is full");
                });
        assertThat(busy.client().error()).isInstanceOf(ConnectionRefusedException.class)
                .hasMessageContaining("listener is full");
        assertThat(((TransportException) busy.client().error()).isRetryable()).isTrue();
        Both bad = run(SecuritySettings.defaults(), SecuritySettings.defaults(), Handshake.KIND_STREAM,
                p -> {
                    throw new HandshakeException("endpoint name is not an address");
                });
        assertThat(bad.client().error()).isInstanceOf(HandshakeException.class);
    }

    @Test
    void aTricklingPeerIsCutOffAtTheDeadline() throws Exception {
        SecuritySettings s = SecuritySettings.defaults().handshakeTimeout(Duration.ofMillis(700));
        CompletableFuture<Throwable> server = CompletableFuture.supplyAsync(() -> {
            try (Socket sock = listener.accept()) {
                long deadline = System.nanoTime() + s.handshakeTimeout().toNanos();
                Handshake.server(new SocketHandshakeIo(sock, deadline), s, Handshake.KIND_STREAM, p -> p);
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        long start = System.nanoTime();
        try (Socket c = new Socket(InetAddress.getLoopbackAddress(), listener.getLocalPort())) {
            OutputStream out = c.getOutputStream();
            byte[] hello = HandshakeMessages.frame(HandshakeMessages.CLIENT_HELLO,
                    HandshakeMessages.clientHello(new HandshakeMessages.ClientHello(1, 1, Handshake.KIND_STREAM,
                            false, new byte[32], new byte[0])));
            for (int i = 0; i < hello.length && !server.isDone(); i++) {
                out.write(hello[i]);
                out.flush();
                Thread.sleep(200);
            }
        } catch (IOException closedByServer) {
            // expected once the server gives up
        }
        Throwable t = server.get(10, TimeUnit.SECONDS);
        assertThat(t).isInstanceOf(ConnectionRefusedException.class).hasMessageContaining("did not finish");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void garbageIsRefusedWithoutAllocatingWhatItAnnounces() throws Exception {
        CompletableFuture<Throwable> server = CompletableFuture.supplyAsync(() -> {
            try (Socket sock = listener.accept()) {
                Handshake.server(new SocketHandshakeIo(sock, System.nanoTime() + 5_000_000_000L),
                        SecuritySettings.defaults(), Handshake.KIND_STREAM, p -> p);
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        try (Socket c = new Socket(InetAddress.getLoopbackAddress(), listener.getLocalPort())) {
            c.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(server.get(10, TimeUnit.SECONDS)).isInstanceOf(HandshakeException.class);
        }
        ServerSocket next = listener;
        CompletableFuture<Throwable> huge = CompletableFuture.supplyAsync(() -> {
            try (Socket sock = next.accept()) {
                Handshake.server(new SocketHandshakeIo(sock, System.nanoTime() + 5_000_000_000L),
                        SecuritySettings.defaults(), Handshake.KIND_STREAM, p -> p);
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        try (Socket c = new Socket(InetAddress.getLoopbackAddress(), listener.getLocalPort())) {
            c.getOutputStream().write(new byte[]{HandshakeMessages.CLIENT_HELLO, (byte) 0xFF, (byte) 0xFF});
            assertThat(huge.get(10, TimeUnit.SECONDS)).isInstanceOf(HandshakeException.class)
                    .hasMessageContaining("exceeds");
        }
    }

    @Test
    void tlsWithTrustedCertificatesCarriesTheHandshake() throws Exception {
        SecuritySettings server = TestCertificates.settings("server").secret(SECRET);
        SecuritySettings client = TestCertificates.settings("client").secret(SECRET);
        Both b = run(client, server, Handshake.KIND_STREAM, accepting(p -> new byte[]{7}));
        assertThat(b.client().error()).isNull();
        assertThat(b.client().value()).containsExactly(7);
    }

    @Test
    void tlsRefusesAnUntrustedClientCertificate() throws Exception {
        Both b = run(TestCertificates.settings("stranger"), TestCertificates.settings("server"),
                Handshake.KIND_STREAM, accepting(p -> p));
        assertThat(b.server().error()).isNotNull();
        assertThat(b.client().error()).isNotNull();
        assertThat(b.client().value()).isNull();
    }

    @Test
    void settingsComeFromOptionsAndRefuseUnknownKeys() {
        TransportConfig c = TransportConfig.defaults().option("security.secret", "0123456789abcdef-secret")
                .option("security.handshakeTimeout", "250ms").option("security.maxConnections", "3")
                .option("liveness.peerTimeout", "3s").option("liveness.heartbeatInterval", "1s");
        assertThat(c.security().authenticates()).isTrue();
        assertThat(c.security().handshakeTimeout()).isEqualTo(Duration.ofMillis(250));
        assertThat(c.security().maxConnections()).isEqualTo(3);
        assertThat(c.liveness().peerTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(c.liveness().validate().heartbeatInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThatThrownBy(() -> TransportConfig.defaults().option("security.sekret", "x"))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("security.secret");
        assertThatThrownBy(() -> TransportConfig.defaults().option("security.secret", "short"))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("16");
        assertThatThrownBy(() -> TransportConfig.defaults().option("security.handshakeTimeout", "soon"))
                .isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> TransportConfig.defaults().option("liveness.peerTimeout", "2s").liveness().validate())
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("twice");
    }
}
