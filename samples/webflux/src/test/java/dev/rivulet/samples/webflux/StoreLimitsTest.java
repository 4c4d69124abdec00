package dev.rivulet.samples.webflux;

import dev.rivulet.samples.webflux.storage.BlockStore;
import dev.rivulet.samples.webflux.storage.StorageNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.zip.CRC32;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The limits a client meets, over HTTP: the store holds what its capacity allows and no more, also once deletes have
 * left holes in it, every block it accepted reading back as written; a PUT that does not fit is a 507; and what a
 * block id may be is one rule for PUT, GET and DELETE, everything else a 4xx, never a 500.
 */
class StoreLimitsTest {

    private static final long CAPACITY = 4 << 20;
    private static ConfigurableApplicationContext storage;
    private static ConfigurableApplicationContext front;
    private static WebTestClient http;
    private static BlockStore store;

    @BeforeAll
    static void start() {
        String address = Apps.networkAddress();
        Assumptions.assumeTrue(address != null, "neither libfabric nor io_uring is available here");
        storage = Apps.storage(address, "--blocks.storage.capacity=" + CAPACITY + "B");
        front = Apps.front(Apps.storageAddress(storage));
        http = Apps.client(front);
        store = storage.getBean(StorageNode.class).store();
        Apps.awaitConnected(http);
    }

    @AfterAll
    static void stop() {
        Apps.close(front, storage);
    }

    @Test
    void refillingHolesLeftByDeletesNeverOverfillsNorCorruptsTheStore() {
        assertThat(store.capacity()).isEqualTo(CAPACITY);
        Random random = new Random(42);
        Map<String, Long> stored = new LinkedHashMap<>();
        int refused = fill("first", random, stored);
        assertThat(refused).as("a full store refuses").isPositive();

        List<String> ids = new ArrayList<>(stored.keySet());
        for (int i = 0; i < ids.size(); i += 1 + random.nextInt(3)) {
            http.delete().uri("/blocks/{id}", ids.get(i)).exchange().expectStatus().isNoContent();
            stored.remove(ids.get(i));
        }
        refused = fill("again", random, stored);
        assertThat(refused).as("the refilled store is full again").isPositive();

        for (Map.Entry<String, Long> b : stored.entrySet()) {
            byte[] back = http.get().uri("/blocks/{id}", b.getKey()).exchange().expectStatus().isOk()
                    .expectBody(byte[].class).returnResult().getResponseBody();
            assertThat(crc(back)).as("block %s read back", b.getKey()).isEqualTo(b.getValue());
        }
        assertThat(store.blockCount()).isEqualTo(stored.size());
        stored.keySet().forEach(id -> http.delete().uri("/blocks/{id}", id).exchange().expectStatus().isNoContent());
        assertThat(store.usedBytes()).as("all room given back").isZero();
    }

    /**
     * PUTs blocks of random sizes (a few KiB to half a MiB) until 20 in a row are refused for want of room; each one
     * accepted is recorded with its checksum. Returns the refusals.
     */
    private static int fill(String round, Random random, Map<String, Long> stored) {
        int refused = 0;
        for (int n = 0, inARow = 0; inARow < 20; n++) {
            byte[] data = new byte[1 + random.nextInt(512 << 10)];
            random.nextBytes(data);
            String id = round + "-" + n;
            EntityExchangeResult<String> r = http.put().uri("/blocks/{id}", id).bodyValue(data).exchange()
                    .expectBody(String.class).returnResult();
            assertThat(store.usedBytes()).as("bytes used after %s", id).isLessThanOrEqualTo(CAPACITY);
            if (status(r) == HttpStatus.INSUFFICIENT_STORAGE.value()) {
                assertThat(r.getResponseBody()).contains("no room");
                refused++;
                inARow++;
                continue;
            }
            assertThat(status(r)).as("PUT %s of %d bytes: %s", id, data.length, r.getResponseBody())
                    .isEqualTo(HttpStatus.CREATED.value());
            stored.put(id, crc(data));
            inARow = 0;
        }
        return refused;
    }

    @ParameterizedTest(name = "/blocks/{0}")
    @ValueSource(strings = {"a%20b", "a%00b", "a%2Fb", "a%2fb", "%C3%A9t%C3%A9", "%F0%9F%98%80", "..", "a%0D%0Ab",
            "a%3Cb%3E", "a%25b"})
    void aHostileIdIsA400OnEveryEndpoint(String encodedId) {
        expectRefused(encodedId, 400);
    }

    @Test
    void anIdOver256CharactersIsA400OnEveryEndpoint() {
        expectRefused("x".repeat(257), 400);
    }

    @Test
    void aUrlTooLongForTheServerIsA414() {
        expectRefused("x".repeat(10_000), 414); // refused by the HTTP server before any handler sees it
    }

    @Test
    void noIdIsNoBlock() {
        assertThat(status(http.put().uri(uri("/blocks/")).bodyValue(new byte[1]).exchange()
                .expectBody(String.class).returnResult())).isBetween(400, 499);
        assertThat(status(http.get().uri(uri("/blocks/")).exchange().expectBody(String.class).returnResult()))
                .isBetween(400, 499);
    }

    @Test
    void theLongestIdOfEveryAllowedCharacterWorksAndItsLocationIsItself() {
        String id = ("Az09-._~" + "x".repeat(256)).substring(0, 256);
        http.put().uri(uri("/blocks/" + id)).bodyValue(new byte[]{7}).exchange().expectStatus().isCreated()
                .expectHeader().location("/blocks/" + id);
        http.get().uri(uri("/blocks/" + id)).exchange().expectStatus().isOk().expectBody(byte[].class)
                .isEqualTo(new byte[]{7});
        http.delete().uri(uri("/blocks/" + id)).exchange().expectStatus().isNoContent();
    }

    /** PUT, GET and DELETE of {@code /blocks/{encodedId}} are each answered {@code status}. */
    private static void expectRefused(String encodedId, int status) {
        int blocks = store.blockCount();
        URI u = uri("/blocks/" + encodedId);
        assertThat(status(http.put().uri(u).bodyValue(new byte[]{1}).exchange().expectBody(String.class)
                .returnResult())).as("PUT %s", u).isEqualTo(status);
        assertThat(status(http.get().uri(u).exchange().expectBody(String.class).returnResult()))
                .as("GET %s", u).isEqualTo(status);
        assertThat(status(http.delete().uri(u).exchange().expectBody(String.class).returnResult()))
                .as("DELETE %s", u).isEqualTo(status);
        assertThat(store.blockCount()).as("nothing stored").isEqualTo(blocks);
    }

    /** {@code path} exactly as written, not encoded again. */
    private static URI uri(String path) {
        return URI.create("http://127.0.0.1:" + Apps.port(front) + path);
    }

    private static int status(EntityExchangeResult<?> r) {
        return r.getStatus().value();
    }

    private static long crc(byte[] b) {
        CRC32 c = new CRC32();
        c.update(b);
        return c.getValue();
    }
}
