package dev.rivulet.spring.buffer;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.LeakDetector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.PooledDataBuffer;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import reactor.core.publisher.Flux;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Rivulet buffer handed to Spring as a DataBuffer goes back to its pool exactly once, whoever releases last, and an
 * HTTP response served by Reactor Netty through Spring's adapter (as WebFlux serves one) writes it without a copy and
 * gives it back, whether the client reads it all or goes away.
 */
class NettyDataBuffersTest {

    private Transport transport;

    @BeforeEach
    void open() {
        LeakDetector.enable();
        LeakDetector.reset();
        transport = Transports.open("local", TransportConfig.defaults());
    }

    @AfterEach
    void close() {
        try {
            LeakDetector.awaitNoLeaks(Duration.ofSeconds(5));
        } finally {
            transport.dispose();
            LeakDetector.disable();
        }
    }

    @Test
    void theDataBufferShowsTheMessageBytesWithoutACopy() {
        Buffer b = transport.memory().allocate(100).write("hello".getBytes(StandardCharsets.UTF_8));
        DataBuffer d = NettyDataBuffers.wrap(b);
        assertThat(d.readableByteCount()).isEqualTo(5);
        assertThat(d.toString(StandardCharsets.UTF_8)).isEqualTo("hello");
        b.segment().set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) 'j');
        assertThat(d.toString(StandardCharsets.UTF_8)).as("the same memory").isEqualTo("jello");
        assertThat(d).isInstanceOf(PooledDataBuffer.class);
        DataBufferUtils.release(d);
        assertThat(b.refCnt()).isZero();
        assertThat(transport.memory().buffers().outstanding()).isZero();
    }

    @Test
    void theLastOfSeveralReleasesReturnsTheBuffer() {
        Buffer b = transport.memory().allocate(8).write(new byte[8]);
        DataBuffer d = NettyDataBuffers.wrap(b);
        DataBufferUtils.retain(d); // e.g. a codec that keeps it while Netty writes it
        DataBufferUtils.release(d);
        assertThat(b.refCnt()).as("still held by the other side").isEqualTo(1);
        DataBufferUtils.release(d);
        assertThat(b.refCnt()).isZero();
        assertThat(((PooledDataBuffer) d).isAllocated()).isFalse();
    }

    @Test
    void anHttpResponseOfReceivedBuffersArrivesWholeAndGivesEveryBufferBack() throws Exception {
        int chunks = 32;
        int size = 64 * 1024;
        DisposableServer server = serve(chunks, size);
        try (HttpClient client = HttpClient.newHttpClient()) {
            byte[] body = client.send(get(server), HttpResponse.BodyHandlers.ofByteArray()).body();
            assertThat(body).hasSize(chunks * size);
            for (int i = 0; i < chunks; i++) {
                byte[] chunk = Arrays.copyOfRange(body, i * size, (i + 1) * size);
                assertThat(chunk).as("chunk %d", i).containsOnly((byte) i);
            }
            awaitNoBufferOut();
        } finally {
            server.disposeNow();
        }
    }

    @Test
    void aClientThatGoesAwayMidResponseLeavesNoBufferOut() throws Exception {
        DisposableServer server = serve(256, 64 * 1024); // 16 MiB, far more than the socket holds
        try (HttpClient client = HttpClient.newHttpClient()) {
            for (int c = 0; c < 20; c++) {
                try (InputStream in = client.send(get(server), HttpResponse.BodyHandlers.ofInputStream()).body()) {
                    assertThat(in.readNBytes(100_000)).hasSize(100_000);
                } // closing the body before its end drops the connection
            }
            awaitNoBufferOut();
        } finally {
            server.disposeNow();
        }
    }

    @Test
    void aResponseRelaysWhatAnEndpointReceivesAndGivesEveryBufferBack() throws Exception {
        int chunks = 16;
        int size = 64 * 1024;
        // the source sends its chunks, then its handler ends and the connection closes: the relay's receive completes
        RivuletServer.BoundServer source = RivuletServer.create().runOn(transport).bindAddress("local://netty-relay")
                .handle(peer -> peer.sendByteArray(Flux.range(0, chunks).map(i -> filled(i, size)))).bindNow();
        Endpoint endpoint = RivuletClient.create().runOn(transport).remoteAddress("local://netty-relay").connectNow();
        HttpHandler handler = (request, response) -> {
            // snippet:begin relay
            // retain(): a received buffer is lent for onNext only; the response keeps it until Netty has written it
            Flux<DataBuffer> body = endpoint.receive().retain().map(NettyDataBuffers::wrap);
            return response.writeWith(body);
            // snippet:end relay
        };
        DisposableServer server = HttpServer.create().host("127.0.0.1").port(0)
                .handle(new ReactorHttpHandlerAdapter(handler)).bindNow();
        try (HttpClient client = HttpClient.newHttpClient()) {
            byte[] body = client.send(get(server), HttpResponse.BodyHandlers.ofByteArray()).body();
            assertThat(body).hasSize(chunks * size);
            for (int i = 0; i < chunks; i++) {
                assertThat(Arrays.copyOfRange(body, i * size, (i + 1) * size)).as("chunk %d", i).containsOnly((byte) i);
            }
        } finally {
            server.disposeNow();
            endpoint.dispose();
            source.disposeNow(Duration.ofSeconds(5));
        }
        awaitNoBufferOut(); // with the endpoint closed, its posted receives are back too
    }

    private static byte[] filled(int value, int size) {
        byte[] bytes = new byte[size];
        Arrays.fill(bytes, (byte) value);
        return bytes;
    }

    /** An HTTP server whose one handler answers {@code chunks} registered buffers of {@code size} bytes each. */
    private DisposableServer serve(int chunks, int size) {
        HttpHandler handler = (request, response) -> response.writeWith(Flux.range(0, chunks)
                .map(i -> NettyDataBuffers.wrap(transport.memory().allocate(size).write(filled(i, size)))));
        return HttpServer.create().host("127.0.0.1").port(0).handle(new ReactorHttpHandlerAdapter(handler)).bindNow();
    }

    private static HttpRequest get(DisposableServer server) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/")).build();
    }

    /** Reactor Netty releases what it wrote, or what it dropped, on its own event loop: wait for it, bounded. */
    private void awaitNoBufferOut() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (transport.memory().buffers().outstanding() != 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(transport.memory().buffers().outstanding()).as("registered buffers out").isZero();
    }
}
