package dev.rivulet.samples.bench.netty;

import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.epoll.Epoll;
import reactor.netty.DisposableServer;
import reactor.netty.tcp.TcpClient;
import reactor.netty.tcp.TcpServer;

import java.time.Duration;

/**
 * How the benchmarks' Reactor Netty server and client are configured, in one place so that every comparison meets the
 * same Netty: Reactor Netty's default loop resources (its native epoll transport where it loads, which {@link
 * #channel} reports), {@value #SOCKET_BUFFER_BYTES}-byte {@code SO_SNDBUF} and {@code SO_RCVBUF} on both sockets,
 * {@code TCP_NODELAY}, and reads of up to 1 MiB where the socket holds that much.
 */
public final class NettyPeer {

    /**
     * {@code SO_SNDBUF} and {@code SO_RCVBUF} on both ends (the kernel doubles what it is given and caps it at
     * {@code net.core.wmem_max} / {@code rmem_max}): without them a stream of 64 KiB messages ran at half the rate.
     */
    public static final int SOCKET_BUFFER_BYTES = 4 << 20;

    private static final String HOST = "127.0.0.1";
    private static final Duration BIND_TIMEOUT = Duration.ofSeconds(20);

    private NettyPeer() {
    }

    /**
     * A server on an ephemeral loopback port whose connections each get a {@link NettyFrameWalker}, answering through
     * their own {@code send(Publisher)}.
     */
    public static DisposableServer serve() {
        return server()
                .handle((in, out) -> {
                    NettyFrameWalker walker = new NettyFrameWalker(out.alloc());
                    return out.send(in.receive().handle(walker::onChunk));
                })
                .bindNow(BIND_TIMEOUT);
    }

    /**
     * The server side's configuration, on an ephemeral port of the loopback address, without a handler: for
     * {@link #serve()} and for protocols that bring their own (RSocket's {@code TcpServerTransport}).
     */
    public static TcpServer server() {
        return TcpServer.create().host(HOST).port(0)
                // On the listening socket too: the receive window's scale is agreed in the handshake.
                .option(ChannelOption.SO_RCVBUF, SOCKET_BUFFER_BYTES)
                .childOption(ChannelOption.SO_RCVBUF, SOCKET_BUFFER_BYTES)
                .childOption(ChannelOption.SO_SNDBUF, SOCKET_BUFFER_BYTES)
                .childOption(ChannelOption.TCP_NODELAY, true)
                // Reads of up to 1 MiB where the socket holds that much (Netty's default stops growing at 64 KiB):
                // fewer read calls for large messages, as the C receiver's 256 KiB reads.
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, new AdaptiveRecvByteBufAllocator(512, 64 << 10, 1 << 20));
    }

    /** The client side's configuration, to a server on {@code port} of the loopback address. */
    public static TcpClient client(int port) {
        return TcpClient.create().host(HOST).port(port)
                .option(ChannelOption.SO_RCVBUF, SOCKET_BUFFER_BYTES)
                .option(ChannelOption.SO_SNDBUF, SOCKET_BUFFER_BYTES)
                .option(ChannelOption.TCP_NODELAY, true);
    }

    /** The channel class Reactor Netty picked ({@code EpollSocketChannel} when the native transport loaded). */
    public static String channel(Class<?> channelClass) {
        return channelClass.getSimpleName() + (Epoll.isAvailable() ? ""
                : "(epoll-unavailable:" + Epoll.unavailabilityCause() + ")");
    }

    /** What the Netty side does, for the CLIs' method text. */
    public static String method() {
        return "Reactor Netty runs with its default loop resources, " + (SOCKET_BUFFER_BYTES >> 20) + " MiB "
                + "`SO_SNDBUF` and `SO_RCVBUF` on both sockets and `TCP_NODELAY`; per message its sender emits a "
                + "retained duplicate of one prepared direct buffer (4-byte length, header, payload) into "
                + "`NettyOutbound.send(Publisher<ByteBuf>)`, and its receiver reads each frame's length and header "
                + "where the socket's buffer holds it, copying nothing";
    }
}
