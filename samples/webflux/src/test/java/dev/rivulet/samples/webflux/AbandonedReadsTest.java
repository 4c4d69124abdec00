package dev.rivulet.samples.webflux;

import dev.rivulet.core.Transport;
import dev.rivulet.samples.webflux.front.StorageClient;
import dev.rivulet.samples.webflux.storage.StorageNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * GETs whose HTTP client goes away part-way through the body: every registered buffer the front took for the body
 * goes back to its pool, and every read access ends on the storage node. (A storage node killed mid-GET:
 * {@link StorageNodeFailureTest}.)
 */
class AbandonedReadsTest {

    private static final int BLOCK = 8 << 20;
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private ConfigurableApplicationContext storage;
    private ConfigurableApplicationContext front;
    private WebTestClient http;

    @BeforeEach
    void start() {
        String address = Apps.networkAddress();
        Assumptions.assumeTrue(address != null, "neither libfabric nor io_uring is available here");
        storage = Apps.storage(address);
        front = Apps.front(Apps.storageAddress(storage));
        http = Apps.client(front);
        Apps.awaitConnected(http);
        http.put().uri("/blocks/big").contentType(MediaType.APPLICATION_OCTET_STREAM).bodyValue(new byte[BLOCK])
                .exchange().expectStatus().isCreated();
    }

    @AfterEach
    void stop() {
        Apps.close(front, storage);
    }

    @Test
    void clientsThatLeaveMidBodyLeaveNoBufferOut() throws IOException {
        for (int i = 0; i < 100; i++) {
            try (Socket client = startGet()) {
                // Gone at once, after a few bytes, or after a few chunks; half with a reset (as a browser tab closed
                // mid-download sends), half with an orderly close.
                int read = switch (i % 3) {
                    case 0 -> 0;
                    case 1 -> 16;
                    default -> 600 << 10;
                };
                readAtLeast(client.getInputStream(), read);
                if (i % 2 == 0) {
                    client.setSoLinger(true, 0);
                }
            }
        }
        Apps.await(() -> node().openAccesses() == 0, DEADLINE, () -> "every read access ended on the storage node ("
                + node().openAccesses() + " open)");
        // The count to compare with is that of the front without its connection to the storage node: zero. With the
        // connection up it also counts that connection's receive buffers, as many as the traffic has had it post.
        StorageClient client = front.getBean(StorageClient.class);
        client.stop();
        Apps.awaitOutstanding(front.getBean(Transport.class).memory().buffers(), 0,
                "after 100 GETs abandoned mid-body, the front disconnected");
        client.start();
        Apps.awaitConnected(http);
        assertThat(http.get().uri("/blocks/big").exchange().expectStatus().isOk().expectBody(byte[].class)
                .returnResult().getResponseBody()).as("the block, read to the end after all that").hasSize(BLOCK);
    }

    /** A slow client: a small receive buffer, a GET of the big block, nothing read yet. */
    private Socket startGet() throws IOException {
        Socket s = new Socket();
        s.setReceiveBufferSize(16 << 10);
        s.connect(new InetSocketAddress("127.0.0.1", Apps.port(front)), 5_000);
        s.setSoTimeout((int) DEADLINE.toMillis());
        OutputStream out = s.getOutputStream();
        // Connection: close, so that a response the front completes ends the connection too, as one it breaks off.
        out.write("GET /blocks/big HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return s;
    }

    private static void readAtLeast(InputStream in, int n) throws IOException {
        byte[] b = new byte[16 << 10];
        int got = 0;
        while (got < n) {
            int r = in.read(b, 0, Math.min(b.length, n - got));
            if (r < 0) {
                throw new AssertionError("the response ended after " + got + " bytes");
            }
            got += r;
        }
    }

    private StorageNode node() {
        return storage.getBean(StorageNode.class);
    }
}
