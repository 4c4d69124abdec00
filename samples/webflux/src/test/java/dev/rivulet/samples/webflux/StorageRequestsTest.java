package dev.rivulet.samples.webflux;

import dev.rivulet.core.error.RemoteApplicationException;
import dev.rivulet.core.interaction.Payload;
import dev.rivulet.core.memory.LeakDetector;
import dev.rivulet.samples.webflux.front.BlockException;
import dev.rivulet.samples.webflux.front.BlockService;
import dev.rivulet.samples.webflux.front.StorageClient;
import dev.rivulet.samples.webflux.protocol.Control;
import dev.rivulet.samples.webflux.protocol.Refusal;
import dev.rivulet.samples.webflux.storage.StorageNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.publisher.Flux;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Storage operations as requests of one interaction session between the front and the storage node (both roles in
 * one process): a request the storage node refuses ends alone while others are open on the same connection, and an
 * HTTP client that goes away cancels its storage request on the storage node, whose window is then given back.
 */
class StorageRequestsTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int IN_FLIGHT = 50;

    private static ConfigurableApplicationContext app;
    private static StorageNode node;
    private static StorageClient storage;
    private static BlockService blocks;
    private static WebTestClient http;

    @BeforeAll
    static void start() {
        LeakDetector.enable(LeakDetector.Level.SIMPLE);
        LeakDetector.reset();
        app = new SpringApplicationBuilder(WebfluxSampleApplication.class).run("--blocks.role=both",
                "--blocks.address=local://storage-requests-test", "--server.port=0",
                "--rivulet.transport.name=storage-requests");
        node = app.getBean(StorageNode.class);
        storage = app.getBean(StorageClient.class);
        blocks = app.getBean(BlockService.class);
        http = Apps.client(app);
        await(storage::isUp, "the front connected to the storage node");
    }

    @AfterEach
    void everyWindowWasGivenBack() {
        await(() -> node.openAccesses() == 0, "no block window held after the test");
    }

    @AfterAll
    static void stop() {
        try {
            if (app != null) {
                app.close();
            }
            LeakDetector.awaitNoLeaks(Duration.ofSeconds(10));
        } finally {
            LeakDetector.disable();
        }
    }

    @Test
    void aRefusedRequestEndsAloneWhileFiftyOthersAreOpenOnTheSameConnection() {
        byte[] data = new byte[300_000];
        new Random(7).nextBytes(data);
        http.put().uri("/blocks/shared").bodyValue(data).exchange().expectStatus().isCreated();
        StorageClient.Session session = storage.session().block(TIMEOUT);

        List<BlockService.BlockRead> reads = Flux.range(0, IN_FLIGHT).flatMap(i -> blocks.get("shared"))
                .collectList().block(TIMEOUT);
        assertThat(node.openAccesses()).as("reads open on the storage node").isEqualTo(IN_FLIGHT);

        // On each route, requests the storage node refuses: unknown block, a hostile id, a message that is no request.
        assertThatThrownBy(() -> blocks.get("never-written").block(TIMEOUT)).isInstanceOfSatisfying(
                BlockException.class, e -> assertThat(e.status()).isEqualTo(HttpStatus.NOT_FOUND));
        assertThatThrownBy(() -> blocks.delete("never-written").block(TIMEOUT)).isInstanceOfSatisfying(
                BlockException.class, e -> assertThat(e.status()).isEqualTo(HttpStatus.NOT_FOUND));
        byte[] hostileId = ByteBuffer.allocate(3 + 4096).put((byte) Control.LOOKUP).putShort((short) 4096)
                .array();
        assertThatThrownBy(() -> session.requester().requestStream(Payload.of(hostileId)
                .metadata(Control.READ_ROUTE)).blockFirst(TIMEOUT))
                .isInstanceOfSatisfying(RemoteApplicationException.class, e -> assertThat(Refusal.of(e)
                        .map(Refusal::reason)).contains(Refusal.Reason.BAD_REQUEST));
        assertThatThrownBy(() -> session.requester().requestChannel(Flux.just(Payload.of(new byte[]{99})
                .metadata(Control.WRITE_ROUTE))).blockFirst(TIMEOUT))
                .isInstanceOf(RemoteApplicationException.class).hasMessageContaining("unknown control message");

        assertThat(storage.session().block(TIMEOUT)).as("the same connection").isSameAs(session);
        assertThat(node.openAccesses()).as("the other requests are still open").isEqualTo(IN_FLIGHT);
        for (BlockService.BlockRead r : reads) {
            byte[] back = DataBufferUtils.join(r.body()).map(b -> {
                byte[] bytes = new byte[b.readableByteCount()];
                b.read(bytes);
                DataBufferUtils.release(b);
                return bytes;
            }).block(TIMEOUT);
            assertThat(back).isEqualTo(data);
        }
    }

    @Test
    void anHttpClientThatGoesAwayCancelsItsReadOnTheStorageNode() throws IOException {
        http.put().uri("/blocks/big").contentType(MediaType.APPLICATION_OCTET_STREAM).bodyValue(new byte[32 << 20])
                .exchange().expectStatus().isCreated();
        long cancelled = node.cancelledRequests();
        try (Socket reader = connect()) {
            reader.getOutputStream().write("GET /blocks/big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            readAtLeast(reader.getInputStream(), 1 << 20);
            assertThat(node.openAccesses()).as("the read is open while its body is sent").isEqualTo(1);
        } // the client reads no further and goes away
        await(() -> node.cancelledRequests() > cancelled && node.openAccesses() == 0,
                "the storage node's read handler cancelled and its window given back");
        LeakDetector.awaitNoLeaks(Duration.ofSeconds(10));
    }

    @Test
    void anHttpClientThatAbandonsAnUploadCancelsTheWriteAndItsRoomGoesBack() throws IOException {
        long used = node.store().usedBytes();
        long cancelled = node.cancelledRequests();
        try (Socket writer = connect()) {
            OutputStream out = writer.getOutputStream();
            out.write(("PUT /blocks/abandoned HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " + (8 << 20)
                    + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(new byte[1 << 20]);
            out.flush();
            await(() -> node.openAccesses() == 1, "the write's room reserved while its body arrives");
        } // the client sends no more and goes away
        await(() -> node.cancelledRequests() > cancelled && node.openAccesses() == 0,
                "the storage node's write handler cancelled and its window revoked");
        assertThat(node.store().usedBytes()).as("the reserved room went back").isEqualTo(used);
        http.get().uri("/blocks/abandoned").exchange().expectStatus().isNotFound();
        LeakDetector.awaitNoLeaks(Duration.ofSeconds(10));
    }

    private static Socket connect() throws IOException {
        Socket s = new Socket();
        s.setReceiveBufferSize(64 << 10);
        s.connect(new InetSocketAddress("127.0.0.1", Apps.port(app)), 5_000);
        s.setSoTimeout((int) TIMEOUT.toMillis());
        return s;
    }

    private static void readAtLeast(InputStream in, long n) throws IOException {
        byte[] b = new byte[64 << 10];
        long got = 0;
        while (got < n) {
            int r = in.read(b);
            assertThat(r).as("the response goes on").isNotNegative();
            got += r;
        }
    }

    private static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + TIMEOUT + ": " + what);
            }
            LockSupport.parkNanos(10_000_000);
        }
    }
}
