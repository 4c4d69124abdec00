package dev.rivulet.samples.bench.interaction;

import dev.rivulet.samples.bench.netty.NettyPeer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketConnector;
import io.rsocket.core.RSocketServer;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.transport.netty.client.TcpClientTransport;
import io.rsocket.transport.netty.server.CloseableChannel;
import io.rsocket.transport.netty.server.TcpServerTransport;
import io.rsocket.util.ByteBufPayload;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.lang.foreign.MemorySegment;
import java.time.Duration;

/**
 * RSocket-java's side, at its best as its documentation recommends: {@link PayloadDecoder#ZERO_COPY} on both ends
 * (payloads are views of the received frame, released by whoever takes them), its TCP transport over Reactor Netty
 * configured as the other Netty comparisons are ({@link NettyPeer}: {@code TCP_NODELAY}, 4 MiB socket buffers), and
 * every payload built from a direct buffer prepared once ({@code ByteBufPayload.create(prepared.retainedDuplicate())}:
 * a view and a reference, no copy), as Rivulet's side builds its payloads ({@link RivuletSide}).
 */
final class RSocketSide {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private RSocketSide() {
    }

    /** A server on an ephemeral loopback port answering as Rivulet's responder does. */
    static CloseableChannel serve() {
        Prepared data = new Prepared();
        return RSocketServer.create(SocketAcceptor.with(new Answers(data)))
                .payloadDecoder(PayloadDecoder.ZERO_COPY)
                .bind(TcpServerTransport.create(NettyPeer.server()))
                .block(TIMEOUT);
    }

    /** The requesting side of a connection to the server on {@code port}. */
    static Client connect(int port) {
        RSocket rsocket = RSocketConnector.create()
                .payloadDecoder(PayloadDecoder.ZERO_COPY)
                .connect(TcpClientTransport.create(NettyPeer.client(port)))
                .block(TIMEOUT);
        return new Client(rsocket, new Prepared());
    }

    /** One pooled direct buffer per size in {@link StreamRequest#SIZES}, filled once, for the process's lifetime. */
    static final class Prepared {

        private final ByteBuf[] buffers = new ByteBuf[StreamRequest.SIZES.length];

        Prepared() {
            for (int i = 0; i < buffers.length; i++) {
                int size = StreamRequest.SIZES[i];
                buffers[i] = PooledByteBufAllocator.DEFAULT.directBuffer(size);
                buffers[i].writerIndex(size).setBytes(0, new byte[size]);
            }
        }

        Payload payload(int size) {
            return ByteBufPayload.create(buffers[StreamRequest.sizeIndex(size)].retainedDuplicate());
        }
    }

    private record Answers(Prepared data) implements RSocket {

        @Override
        public Mono<Payload> requestResponse(Payload request) {
            int size = request.data().readableBytes();
            request.release();
            return Mono.just(data.payload(size));
        }

        @Override
        public Flux<Payload> requestStream(Payload request) {
            ByteBuf d = request.data();
            MemorySegment s = MemorySegment.ofBuffer(d.nioBuffer(d.readerIndex(), StreamRequest.LENGTH));
            long count = StreamRequest.count(s);
            int size = StreamRequest.size(s);
            request.release();
            return StreamRequest.answer(count, size, data::payload);
        }
    }

    record Client(RSocket rsocket, Prepared data) implements Requesting<Payload> {

        @Override
        public Publisher<Payload> requestResponse(int size) {
            return rsocket.requestResponse(data.payload(size));
        }

        @Override
        public Publisher<Payload> requestStream(long count, int size) {
            return rsocket.requestStream(ByteBufPayload.create(StreamRequest.encode(count, size)));
        }

        @Override
        public int dataLength(Payload answer) {
            return answer.data().readableBytes();
        }

        @Override
        public void done(Payload answer) {
            answer.release(); // ZERO_COPY: the payload holds the received frame until released
        }

        void close() {
            rsocket.dispose();
        }
    }
}
