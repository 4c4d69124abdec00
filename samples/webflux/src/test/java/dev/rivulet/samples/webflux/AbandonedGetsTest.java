package dev.rivulet.samples.webflux;

import dev.rivulet.core.memory.BufferPool;
import dev.rivulet.core.memory.LeakDetector;
import dev.rivulet.samples.webflux.front.StorageClient;
import dev.rivulet.samples.webflux.storage.StorageNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;
import java.util.zip.CRC32;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A hundred HTTP clients at once that read the start of a block and go away, against the front and the storage node
 * as two applications over a network transport: afterwards no registered buffer stays out on either side (every
 * get's buffer went back, whether it was still in flight, waiting for the response or in Netty's hands), the storage
 * node holds no read window, and the block still reads back whole.
 *
 * <p>The buffers are counted by each side's pool. A connection keeps receive buffers posted, and how many moves with
 * the traffic it has seen, so the count is taken with the front's connection to the storage node closed: then
 * neither side may hold a single registered buffer.
 */
class AbandonedGetsTest {

    private static final int CLIENTS = 100;
    private static final int BLOCK = 4 << 20;
    private static final int READ_BEFORE_LEAVING = 64 << 10;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private static ConfigurableApplicationContext storage;
    private static ConfigurableApplicationContext front;
    private static StorageNode node;
    private static StorageClient link;
    private static long blockCrc;

    @BeforeAll
    static void start() {
        String address = Apps.networkAddress();
        Assumptions.assumeTrue(address != null, "neither libfabric nor io_uring is available here");
        // Paranoid: a buffer the block service still holds at the end is reported with where it was allocated.
        LeakDetector.enable(LeakDetector.Level.PARANOID);
        storage = Apps.storage(address);
        front = Apps.front(Apps.storageAddress(storage));
        node = storage.getBean(StorageNode.class);
        link = front.getBean(StorageClient.class);
        Apps.awaitConnected(Apps.client(front));
        byte[] block = new byte[BLOCK];
        new Random(11).nextBytes(block);
        blockCrc = crc(block);
        Apps.client(front).put().uri("/blocks/shared").bodyValue(block).exchange().expectStatus().isCreated();
    }

    @AfterAll
    static void stop() {
        try {
            Apps.close(front, storage);
        } finally {
            LeakDetector.disable();
        }
    }

    @BeforeEach
    void readsWholeBefore() {
        assertThat(readWhole()).isEqualTo(blockCrc);
        LeakDetector.reset();
    }

    @AfterEach
    void nothingStaysOut() {
        Apps.await(() -> node.openAccesses() == 0, TIMEOUT, () -> "no read window held on the storage node ("
                + node.openAccesses() + " now)");
        link.stop(); // the front's connection to the storage node closes, with the receive buffers it kept posted
        try {
            Apps.awaitOutstanding(buffers(front), 0, "on the front after " + CLIENTS + " abandoned GETs");
            Apps.awaitOutstanding(buffers(storage), 0, "on the storage node after " + CLIENTS + " abandoned GETs");
        } catch (AssertionError e) {
            e.addSuppressed(new AssertionError("allocated by the block service during the test and still out:\n"
                    + String.join("\n", LeakDetector.report().stream()
                    .filter(r -> r.contains("dev.rivulet.samples.webflux")).toList())));
            throw e;
        } finally {
            link.start();
        }
        Apps.awaitConnected(Apps.client(front));
        assertThat(readWhole()).as("the block read back whole afterwards").isEqualTo(blockCrc);
    }

    @Test
    void aHundredClientsClosingTheBodyMidwayLeaveNoBufferOut() throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        URI uri = URI.create("http://127.0.0.1:" + Apps.port(front) + "/blocks/shared");
        long before = node.cancelledRequests();
        runAtOnce(() -> {
            HttpResponse<InputStream> r = http.send(HttpRequest.newBuilder(uri).timeout(TIMEOUT).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            assertThat(r.statusCode()).isEqualTo(200);
            try (InputStream body = r.body()) {
                assertThat(body.readNBytes(READ_BEFORE_LEAVING)).hasSize(READ_BEFORE_LEAVING);
            } // closed before the end: the client cancels and its connection goes
            return null;
        });
        Apps.await(() -> node.cancelledRequests() - before >= CLIENTS, TIMEOUT,
                () -> "every abandoned GET's read cancelled on the storage node");
        http.close();
    }

    @Test
    void aHundredReactiveClientsCancellingAfterTheFirstBytesLeaveNoBufferOut() throws Exception {
        WebClient web = WebClient.create("http://127.0.0.1:" + Apps.port(front));
        runAtOnce(() -> {
            // The first part of the body, then cancel: Reactor Netty closes the connection mid-response.
            Flux<DataBuffer> body = web.get().uri("/blocks/shared").retrieve().bodyToFlux(DataBuffer.class);
            DataBuffer first = body.next().block(TIMEOUT);
            assertThat(first).isNotNull();
            DataBufferUtils.release(first);
            return null;
        });
    }

    /** {@code client} run by {@link #CLIENTS} threads at once; fails with the first client's failure. */
    private static void runAtOnce(Callable<Void> client) throws Exception {
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            for (var f : clients.invokeAll(IntStream.range(0, CLIENTS).mapToObj(i -> client).toList())) {
                f.get();
            }
        }
    }

    private static long readWhole() {
        byte[] back = Apps.client(front).get().uri("/blocks/shared").exchange().expectStatus().isOk()
                .expectBody(byte[].class).returnResult().getResponseBody();
        assertThat(back).hasSize(BLOCK);
        return crc(back);
    }

    private static BufferPool buffers(ConfigurableApplicationContext app) {
        return Apps.transport(app).memory().buffers();
    }

    private static long crc(byte[] b) {
        CRC32 c = new CRC32();
        c.update(b);
        return c.getValue();
    }
}
