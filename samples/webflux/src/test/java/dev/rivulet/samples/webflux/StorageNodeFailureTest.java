package dev.rivulet.samples.webflux;

import dev.rivulet.core.memory.BufferPool;
import dev.rivulet.core.memory.LeakDetector;
import dev.rivulet.samples.webflux.front.StorageClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The storage node in a process of its own, killed ({@code SIGKILL}) in the middle of a 64 MiB GET whose client has
 * stopped reading (so the front holds chunks of the block for it): the response breaks off, later requests are answered 503 with the reason, nothing the front holds leaks, and when a storage node
 * comes back at the same address the front reconnects by itself and serves again.
 */
class StorageNodeFailureTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int BIG = 64 << 20;
    /** Chunks of 256 KiB the front holds for a client that stopped reading, before the storage node is killed. */
    private static final int STALLED_CHUNKS = 64;

    private final List<Process> children = new ArrayList<>();
    private ConfigurableApplicationContext front;
    private String address;

    @BeforeEach
    void start() throws IOException {
        String network = Apps.networkAddress();
        Assumptions.assumeTrue(network != null, "neither libfabric nor io_uring is available here");
        LeakDetector.enable(LeakDetector.Level.SIMPLE);
        LeakDetector.reset();
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        address = network.replace(":0", ":" + port);
        startStorage();
        front = Apps.front(address);
        awaitStatus(Apps.client(front), HttpStatus.CREATED);
    }

    @AfterEach
    void stop() {
        try {
            children.forEach(Process::destroyForcibly);
            if (front != null) {
                front.close();
            }
            LeakDetector.awaitNoLeaks(Duration.ofSeconds(10));
        } finally {
            LeakDetector.disable();
        }
    }

    @Test
    void aStorageNodeKilledMidRequestIsA503ThenTheFrontRecovers() throws Exception {
        WebTestClient http = Apps.client(front);
        http.put().uri("/blocks/big").contentType(MediaType.APPLICATION_OCTET_STREAM).bodyValue(new byte[BIG])
                .exchange().expectStatus().isCreated();

        BufferPool frontBuffers = Apps.transport(front).memory().buffers();
        long idle = frontBuffers.outstanding();
        // A client that reads the first megabyte, then stops reading: the front fetches ahead into registered
        // buffers until Reactor Netty's queue for the response is full, and waits. The storage node dies then,
        // with chunks of the block waiting in the front for the client.
        try (Socket reader = new Socket()) {
            reader.setReceiveBufferSize(64 << 10);
            reader.connect(new InetSocketAddress("127.0.0.1", Apps.port(front)), 5_000);
            reader.setSoTimeout((int) TIMEOUT.toMillis());
            OutputStream out = reader.getOutputStream();
            out.write("GET /blocks/big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = reader.getInputStream();
            long got = readAtLeast(in, 1 << 20);
            awaitStalled(frontBuffers, idle);
            children.getFirst().destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            // The client reads on only once the front has seen the storage node go: the gets the response asks for
            // then fail at once, behind the chunks still waiting for the client.
            StorageClient link = front.getBean(StorageClient.class);
            Apps.await(() -> !link.isUp(), TIMEOUT, () -> "the front sees the storage node gone");
            got += drain(in);
            assertThat(got).as("the response broke off before the whole block (headers included)")
                    .isLessThan(BIG);
        }

        String refusal = awaitStatus(http, HttpStatus.SERVICE_UNAVAILABLE);
        assertThat(refusal).contains("storage node");
        // A request can fail with the lost connection's error a moment before the front has handled the close
        // itself (its health follows the close), so the health is awaited, not read once.
        awaitFrontDown(http);
        http.get().uri("/actuator/health").exchange().expectBody()
                .jsonPath("$.components.front.status").isEqualTo("DOWN")
                .jsonPath("$.components.front.details.reason").isNotEmpty();
        LeakDetector.awaitNoLeaks(Duration.ofSeconds(10));
        // With no connection to the storage node the front holds no registered buffer at all: none stayed with the
        // GET that was under way, nor with the gets it had in flight.
        Apps.awaitOutstanding(frontBuffers, 0,
                "while the storage node that died mid-GET is down");

        startStorage();
        awaitStatus(http, HttpStatus.CREATED);
        http.get().uri("/blocks/probe").exchange().expectStatus().isOk();
    }

    /**
     * Waits until the front holds at least {@link #STALLED_CHUNKS} chunks more than {@code idle} and has taken no
     * buffer for a second: it has fetched as far ahead as the response lets it and waits for the client.
     */
    private static void awaitStalled(BufferPool frontBuffers, long idle) {
        long[] last = {frontBuffers.outstanding(), System.nanoTime()};
        Apps.await(() -> {
            long now = frontBuffers.outstanding();
            if (now != last[0]) {
                last[0] = now;
                last[1] = System.nanoTime();
            }
            return now - idle >= STALLED_CHUNKS && System.nanoTime() - last[1] > 1_000_000_000L;
        }, TIMEOUT, () -> "the front waits for the stalled client, holding chunks for it ("
                + (frontBuffers.outstanding() - idle) + " buffers now)");
    }

    private static void awaitFrontDown(WebTestClient http) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        for (;;) {
            try {
                http.get().uri("/actuator/health").exchange().expectBody()
                        .jsonPath("$.components.front.status").isEqualTo("DOWN");
                return;
            } catch (AssertionError notYet) {
                if (System.nanoTime() > deadline) {
                    throw notYet;
                }
                LockSupport.parkNanos(50_000_000);
            }
        }
    }

    /** PUTs a small block until the answer has {@code status} (the front reconnects with backoff); its body. */
    private static String awaitStatus(WebTestClient http, HttpStatus status) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            var r = http.put().uri("/blocks/probe").bodyValue(new byte[16]).exchange().returnResult(String.class);
            String body = String.join("", r.getResponseBody().collectList().block(TIMEOUT));
            if (r.getStatus().value() == status.value()) {
                return body;
            }
            last = r.getStatus() + " " + body;
            LockSupport.parkNanos(100_000_000);
        }
        throw new AssertionError("never " + status + "; last answer: " + last);
    }

    private void startStorage() throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), WebfluxSampleApplication.class.getName(),
                "--blocks.role=storage", "--blocks.address=" + address, "--server.port=0",
                "--rivulet.transport.name=storage-child", "--blocks.storage.capacity=128MB")
                .redirectErrorStream(true).start();
        children.addFirst(p);
        CompletableFuture<Void> listening = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.contains("storage node listening at")) {
                        listening.complete(null);
                    }
                }
            } catch (IOException e) {
                // the child went away
            }
            listening.completeExceptionally(new IllegalStateException("the storage node exited before listening"));
        });
        listening.orTimeout(60, TimeUnit.SECONDS).join();
    }

    private static long readAtLeast(InputStream in, long n) throws IOException {
        byte[] b = new byte[64 << 10];
        long got = 0;
        while (got < n) {
            int r = in.read(b);
            if (r < 0) {
                break;
            }
            got += r;
        }
        return got;
    }

    /** Reads until the front closes the connection (or the read times out); returns the bytes read. */
    private static long drain(InputStream in) throws IOException {
        byte[] b = new byte[64 << 10];
        long got = 0;
        try {
            int r;
            while ((r = in.read(b)) >= 0) {
                got += r;
            }
        } catch (java.net.SocketException reset) {
            // the front reset the connection: also a broken-off response
        }
        return got;
    }
}
