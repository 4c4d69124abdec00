package dev.rivulet.samples.webflux;

import dev.rivulet.core.EndpointStats;
import dev.rivulet.samples.webflux.storage.StorageNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Backpressure from the browser to the fabric: an HTTP client that stops reading {@code /events} stops the storage
 * node's sender once the few buffers in between are full (the socket's, Netty's, one credit window), and memory stays
 * where it was. A client that reads keeps the sender going: the stall is the slow client's doing.
 */
class SlowClientBackpressureTest {

    private static final int DEPTH = 32;
    private static ConfigurableApplicationContext storage;
    private static ConfigurableApplicationContext front;

    @BeforeAll
    static void start() {
        String address = Apps.networkAddress();
        Assumptions.assumeTrue(address != null, "neither libfabric nor io_uring is available here");
        storage = Apps.storage(address, "--blocks.storage.events-per-second=0",
                "--rivulet.transport.receive-queue-depth=" + DEPTH, "--rivulet.transport.send-queue-depth=" + DEPTH);
        front = Apps.front(Apps.storageAddress(storage));
    }

    @AfterAll
    static void stop() {
        if (front != null) {
            front.close();
        }
        if (storage != null) {
            storage.close();
        }
    }

    @Test
    void aClientThatStopsReadingStopsTheSenderAndMemoryStaysBounded() throws Exception {
        StorageNode node = storage.getBean(StorageNode.class);
        try (Socket stalled = openEvents()) {
            // The client read the first event and reads nothing more from here on. The buffers in between (the
            // front's socket buffer grows to megabytes on loopback) fill at whatever pace the machine allows: the
            // sender must come to a stop, however long filling them takes on a loaded machine.
            long giveUpAt = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            long last = node.eventsSent();
            while (true) {
                LockSupport.parkNanos(Duration.ofSeconds(1).toNanos());
                long now = node.eventsSent();
                if (now - last <= 2 * DEPTH) {
                    break;
                }
                assertThat(System.nanoTime() < giveUpAt).as("the sender stops once the buffers are full (sent %d)",
                        now).isTrue();
                last = now;
            }
            long heapBefore = usedHeapAfterGc();
            long sentBefore = node.eventsSent();
            LockSupport.parkNanos(Duration.ofSeconds(3).toNanos());
            long sentAfter = node.eventsSent();
            long heapAfter = usedHeapAfterGc();

            assertThat(sentAfter - sentBefore).as("events sent while the client did not read (sent so far: %d)",
                    sentAfter).isLessThanOrEqualTo(2 * DEPTH);
            List<EndpointStats> senders = node.eventStreamStats().collectList().block(Duration.ofSeconds(5));
            assertThat(senders).hasSize(1);
            EndpointStats s = senders.getFirst();
            assertThat(s.sendCredits()).as("the sender has used every credit the front granted").isZero();
            assertThat(s.creditStalls()).as("and waits for more").isPositive();
            assertThat(s.maxSendsInFlight()).as("never more in flight than one credit window")
                    .isLessThanOrEqualTo(DEPTH);
            assertThat(heapAfter - heapBefore).as("heap growth while stalled, bytes").isLessThan(8L << 20);

            // The same stream read by a client that keeps up goes on at full speed.
            try (Socket reading = openEvents()) {
                BufferedReader in = new BufferedReader(new InputStreamReader(reading.getInputStream(),
                        StandardCharsets.UTF_8));
                long before = node.eventsSent();
                int lines = 0;
                long until = System.nanoTime() + Duration.ofSeconds(1).toNanos();
                while (System.nanoTime() < until && in.readLine() != null) {
                    lines++;
                }
                assertThat(lines).isGreaterThan(1000);
                assertThat(node.eventsSent() - before).isGreaterThan(500);
            }
        }
    }

    /** Connects to {@code /events} with a small receive buffer, reads up to the first event, and returns. */
    private static Socket openEvents() throws Exception {
        Socket s = new Socket();
        s.setReceiveBufferSize(16 << 10);
        s.connect(new InetSocketAddress("127.0.0.1", Apps.port(front)), 5_000);
        s.setSoTimeout(10_000);
        OutputStream out = s.getOutputStream();
        out.write(("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8), 1);
        String line;
        while ((line = in.readLine()) != null && !line.startsWith("data:")) {
            assertThat(line).doesNotStartWith("HTTP/1.1 5");
        }
        assertThat(line).as("an event arrived").isNotNull();
        return s;
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
