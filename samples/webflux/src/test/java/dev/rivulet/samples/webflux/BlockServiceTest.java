package dev.rivulet.samples.webflux;

import dev.rivulet.core.memory.LeakDetector;
import dev.rivulet.samples.webflux.storage.StorageNode;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.publisher.Flux;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.CRC32;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The front and the storage node as two applications (two Spring contexts in this JVM) over a real network
 * transport: blocks from 1 B to 64 MiB round trip byte for byte, bad requests are refused before memory is touched,
 * Actuator shows Rivulet's health and meters, and a trace runs from the HTTP request into the transport.
 */
class BlockServiceTest {

    private static ConfigurableApplicationContext storage;
    private static ConfigurableApplicationContext front;
    private static WebTestClient http;

    /** Observations the front's registry saw: name, parent's name, and the events recorded on them. */
    static final List<String> SEEN = new CopyOnWriteArrayList<>();

    @Configuration(proxyBeanMethods = false)
    static class RecordObservations {
        @Bean
        ObservationHandler<Observation.Context> recorder() {
            return new ObservationHandler<>() {
                @Override
                public void onStop(Observation.Context c) {
                    Observation.ContextView parent = c.getParentObservation() == null ? null
                            : c.getParentObservation().getContextView();
                    SEEN.add(c.getName() + " <- " + (parent == null ? "none" : parent.getName()));
                }

                @Override
                public void onEvent(Observation.Event event, Observation.Context c) {
                    SEEN.add(event.getName() + " @ " + c.getName());
                }

                @Override
                public boolean supportsContext(Observation.Context context) {
                    return true;
                }
            };
        }
    }

    @BeforeAll
    static void start() {
        String address = Apps.networkAddress();
        Assumptions.assumeTrue(address != null, "neither libfabric nor io_uring is available here");
        LeakDetector.enable(LeakDetector.Level.SIMPLE);
        LeakDetector.reset();
        storage = Apps.storage(address);
        front = Apps.front(Apps.storageAddress(storage), RecordObservations.class);
        http = Apps.client(front);
        awaitUp();
    }

    static void awaitUp() {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            String health = http.get().uri("/actuator/health").exchange().returnResult(String.class)
                    .getResponseBody().blockFirst(Duration.ofSeconds(5));
            if (health != null && health.contains("\"front\":{\"details\":{\"address\"") && health.contains("credits")) {
                return;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(50_000_000);
        }
        throw new AssertionError("the front did not connect to the storage node");
    }

    @AfterAll
    static void stop() {
        try {
            if (front != null) {
                front.close();
            }
            if (storage != null) {
                storage.close();
            }
            LeakDetector.awaitNoLeaks(Duration.ofSeconds(10));
        } finally {
            LeakDetector.disable();
        }
    }

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {1, 1024, (1 << 20) + 1, 64 << 20})
    void blocksRoundTripByteForByte(int size) {
        byte[] data = new byte[size];
        new Random(size).nextBytes(data);
        String id = "block-" + size;
        http.put().uri("/blocks/{id}", id).contentType(MediaType.APPLICATION_OCTET_STREAM).bodyValue(data)
                .exchange().expectStatus().isCreated();
        byte[] back = http.get().uri("/blocks/{id}", id).exchange().expectStatus().isOk()
                .expectHeader().contentLength(size)
                .expectBody(byte[].class).returnResult().getResponseBody();
        assertThat(crc(back)).as("checksum of %d bytes read back", size).isEqualTo(crc(data));
        assertThat(back).hasSize(size);
    }

    @Test
    void aBlockIsReplacedAndDeleted() {
        http.put().uri("/blocks/x").bodyValue(new byte[]{1, 2, 3}).exchange().expectStatus().isCreated();
        http.put().uri("/blocks/x").bodyValue(new byte[]{4, 5}).exchange().expectStatus().isCreated();
        http.get().uri("/blocks/x").exchange().expectBody(byte[].class).isEqualTo(new byte[]{4, 5});
        http.delete().uri("/blocks/x").exchange().expectStatus().isNoContent();
        http.get().uri("/blocks/x").exchange().expectStatus().isNotFound();
    }

    @Test
    void anUnknownBlockIs404() {
        http.get().uri("/blocks/never-written").exchange().expectStatus().isNotFound()
                .expectBody(String.class).value(b -> assertThat(b).contains("no block never-written"));
    }

    @Test
    void aBodyOverTheLimitIs413BeforeAnyMemoryIsTouched() {
        StorageNode node = storage.getBean(StorageNode.class);
        long used = node.store().usedBytes();
        long requests = requestsAnswered();
        http.put().uri("/blocks/huge").header("Content-Length", String.valueOf((64L << 20) + 1))
                .body(Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(ByteBuffer.allocate(1))), DataBuffer.class)
                .exchange().expectStatus().isEqualTo(HttpStatus.CONTENT_TOO_LARGE);
        assertThat(node.store().usedBytes()).isEqualTo(used);
        assertThat(requestsAnswered()).as("the storage node was never asked").isEqualTo(requests);
    }

    @Test
    void aBodyOfUnknownLengthIs411() {
        http.put().uri("/blocks/chunked")
                .body(Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(new byte[10])), DataBuffer.class)
                .exchange().expectStatus().isEqualTo(HttpStatus.LENGTH_REQUIRED);
    }

    @Test
    void actuatorShowsTheConnectionsHealthAndRivuletMeters() {
        http.put().uri("/blocks/metered").bodyValue(new byte[4096]).exchange().expectStatus().isCreated();
        http.get().uri("/actuator/health").exchange().expectStatus().isOk().expectBody()
                .jsonPath("$.components.front.status").isEqualTo("UP")
                .jsonPath("$.components.front.details.credits").isNumber()
                .jsonPath("$.components.front.details.pendingOperations").isNumber();
        String prometheus = http.get().uri("/actuator/prometheus").exchange().expectStatus().isOk()
                .expectBody(String.class).returnResult().getResponseBody();
        assertThat(prometheus).contains("rivulet_operations_posted_total{").contains("name=\"front-")
                .contains("op=\"put\"").contains("rivulet_bytes_sent_bytes_total").contains("rivulet_inflight")
                .contains("rivulet_webflux_blocks_stored_total");
        Apps.client(storage).get().uri("/actuator/health").exchange().expectBody()
                .jsonPath("$.components.storage.status").isEqualTo("UP")
                .jsonPath("$.components.storage.details.connections").isNumber();
    }

    @Test
    void aTraceRunsFromTheHttpRequestIntoTheTransport() {
        SEEN.clear();
        http.put().uri("/blocks/traced").bodyValue(new byte[300_000]).exchange().expectStatus().isCreated();
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!SEEN.contains("rivulet.block.put <- http.server.requests") && System.nanoTime() < deadline) {
            java.util.concurrent.locks.LockSupport.parkNanos(10_000_000);
        }
        assertThat(SEEN).contains("rivulet.block.put <- http.server.requests")
                .as("the transport's own operations, recorded where the request's context reached them")
                .contains("rivulet.put @ rivulet.block.put", "rivulet.flush @ rivulet.block.put");
    }

    private static long requestsAnswered() {
        String p = Apps.client(storage).get().uri("/actuator/prometheus").exchange().expectBody(String.class)
                .returnResult().getResponseBody();
        return p.lines().filter(l -> l.startsWith("rivulet_webflux_storage_requests_total"))
                .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    private static long crc(byte[] b) {
        CRC32 c = new CRC32();
        c.update(b);
        return c.getValue();
    }
}
