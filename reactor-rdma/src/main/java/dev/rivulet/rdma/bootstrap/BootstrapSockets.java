package dev.rivulet.rdma.bootstrap;

import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.handshake.TlsSockets;
import dev.rivulet.core.liveness.LivenessSettings;
import dev.rivulet.core.security.SecuritySettings;
import org.jspecify.annotations.Nullable;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * The TCP sockets an RDMA connection is bootstrapped over, the same for the libfabric and the ibverbs transport:
 * the listener's server socket, the client's connection (TLS over it where configured), and the options both ends
 * set before the handshake.
 */
public final class BootstrapSockets {

    private BootstrapSockets() {
    }

    /**
     * A listener's server socket on {@code host}:{@code port} (port 0: an ephemeral one), with address reuse so a
     * listener started again gets its port back while old connections linger in TIME_WAIT.
     *
     * @param address the address being bound, for the error
     * @throws InvalidRequestException when the address cannot be bound
     */
    public static ServerSocket bind(String host, int port, String address) throws IOException {
        ServerSocket ss = new ServerSocket();
        try {
            ss.setReuseAddress(true);
            ss.bind(new InetSocketAddress(host, port));
        } catch (IOException e) {
            ss.close();
            throw new InvalidRequestException("cannot bind " + address + ": " + e.getMessage());
        }
        return ss;
    }

    /** Builds what listens on a bound bootstrap socket. */
    @FunctionalInterface
    public interface ListenerFactory<L> {
        L create(ServerSocket socket) throws IOException;
    }

    /**
     * Binds as {@link #bind} does and builds the listener on the socket; closes the socket when building fails, as
     * nothing else owns it yet.
     */
    public static <L> L listen(String host, int port, String address, ListenerFactory<L> factory) throws IOException {
        ServerSocket ss = bind(host, port, address);
        try {
            return factory.create(ss);
        } catch (IOException | RuntimeException e) {
            closeQuietly(ss);
            throw e;
        }
    }

    /**
     * The client's side: tunes {@code plain} ({@link #tune}), connects it to {@code host}:{@code port} within the
     * connect timeout and, where the security settings ask for TLS, starts TLS over it by {@code deadline}
     * ({@link System#nanoTime()}).
     *
     * @return the socket the handshake runs on: TLS over {@code plain}, or {@code plain} itself; the caller closes
     *         both when set-up fails
     */
    public static Socket connect(Socket plain, String host, int port, TransportConfig config, long deadline)
            throws IOException {
        tune(plain, config.liveness());
        plain.connect(new InetSocketAddress(host, port), (int) Math.max(1, config.connectTimeout().toMillis()));
        return config.security().usesTls() ? TlsSockets.client(plain, config.security(), host, port, deadline)
                : plain;
    }

    /**
     * The listener's side: tunes a connection the server socket accepted ({@link #tune}) and, where the security
     * settings ask for TLS, starts TLS over it by {@code deadline} ({@link System#nanoTime()}).
     *
     * @return the socket the handshake runs on: TLS over {@code plain}, or {@code plain} itself; the caller closes
     *         both when set-up fails
     */
    public static Socket accepted(Socket plain, SecuritySettings security, LivenessSettings liveness, long deadline)
            throws IOException {
        tune(plain, liveness);
        return security.usesTls() ? TlsSockets.server(plain, security, deadline) : plain;
    }

    /**
     * No Nagle delay (the handshake and the liveness bytes are small and answered at once), and TCP keepalive from
     * the liveness settings, so even a peer host that vanished without a trace is found by the kernel as well as by
     * the heartbeats ({@link LivenessChannel}).
     */
    public static void tune(Socket s, LivenessSettings liveness) throws IOException {
        s.setTcpNoDelay(true);
        s.setKeepAlive(true);
        int idle = (int) Math.max(1, liveness.heartbeatInterval().toSeconds());
        try {
            s.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPIDLE, idle);
            s.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPINTERVAL, idle);
            s.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPCOUNT, 3);
        } catch (UnsupportedOperationException e) {
            // a platform without the extended options keeps the kernel's keepalive timing; heartbeats still run
        }
    }

    /** Closes {@code s} (null: nothing) on a path that has nothing left to do about a failure. */
    public static void closeQuietly(@Nullable Closeable s) {
        if (s == null) {
            return;
        }
        try {
            s.close();
        } catch (IOException e) {
            // nothing left to do
        }
    }
}
