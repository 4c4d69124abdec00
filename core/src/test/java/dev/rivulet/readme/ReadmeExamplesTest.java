package dev.rivulet.readme;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.LeakDetector;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RemoteMemory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's Java examples, compiled and run here. Each example is a region of this file between
 * {@code // readme:begin} and {@code // readme:end}; {@link #theReadmeShowsExactlyTheseExamples()} fails when a
 * README block and the regions differ, so the README cannot drift from code that compiles and works.
 */
class ReadmeExamplesTest {

    private static final Logger log = LoggerFactory.getLogger(ReadmeExamplesTest.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private final AtomicLong processed = new AtomicLong();

    @BeforeEach
    void detectLeaks() {
        LeakDetector.enable();
        LeakDetector.reset();
    }

    @AfterEach
    void noLeaks() {
        try {
            LeakDetector.awaitNoLeaks(TIMEOUT);
        } finally {
            LeakDetector.disable();
        }
    }

    @Test
    void aServerAndAClient() {
        // readme:begin
        RivuletServer.BoundServer server = RivuletServer.create()
                .bindAddress("local://orders")
                .handle(ep -> ep.receive()
                        .asString()                                     // copied out: nothing to release
                        .doOnNext(order -> log.info("got {}", order))
                        .then())                                        // the endpoint closes when this completes
                .bindNow();

        Endpoint ep = RivuletClient.create()
                .remoteAddress("local://orders")
                .connectNow();

        ep.sendString(Flux.range(0, 1_000).map(i -> "order " + i)).block();  // a slow server slows this down
        server.disposeGracefully(Duration.ofSeconds(10)).block();             // lets work in flight finish
        // readme:end
        assertThat(server.isDisposed()).isTrue();
        assertThat(ep.onClose().block(TIMEOUT)).isNull();
    }

    @Test
    void zeroCopyBuffersLentAndRetained() {
        Transport transport = Transports.open("local", TransportConfig.defaults());
        try {
            RivuletServer.BoundServer server = RivuletServer.create().runOn(transport).bindAddress("local://zero")
                    .handle(peer ->
                        // readme:begin
                        peer.receive()
                                .retain()                                       // these buffers outlive onNext: the subscriber owns them
                                .publishOn(Schedulers.boundedElastic())         // heavy work off the polling thread
                                .doOnNext(buf -> {
                                    try {
                                        process(buf.segment());
                                    } finally {
                                        buf.release();
                                    }
                                })
                                .doOnDiscard(Buffer.class, Buffer::release)     // what a cancelled publishOn queue still holds
                                .then()                                         // the handler ends once the peer closed and all was processed
                        // readme:end
                    )
                    .bindNow();
            Endpoint ep = RivuletClient.create().runOn(transport).remoteAddress("local://zero").connectNow();
            // readme:begin
            ep.send(Flux.range(0, 100_000)
                    .map(i -> ep.memory().allocate(64).write(encode(i))))   // written in place, no copy on the way out
                    .block();
            // readme:end
            ep.closeGracefully(TIMEOUT).block(TIMEOUT);
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (processed.get() < 100_000 && System.nanoTime() < deadline) {
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
            assertThat(processed).hasValue(100_000);
            server.disposeNow(TIMEOUT);
        } finally {
            transport.dispose();
        }
    }

    @Test
    void oneSidedOperationsOnAGrantedWindow() {
        Transport transport = Transports.open("local", TransportConfig.defaults());
        try (Arena arena = Arena.ofShared()) {
            MemorySegment segment = arena.allocate(4096, 64);
            MemoryRegion local = transport.memory().register(arena.allocate(4096, 64));
            local.segment().fill((byte) 7);
            // readme:begin
            MemoryRegion region = transport.memory().register(segment, Access.REMOTE_READ, Access.REMOTE_WRITE,
                    Access.REMOTE_ATOMIC);                          // registering alone exposes nothing
            RivuletServer.create().runOn(transport).bindAddress("local://store")
                    .handle(peer -> {
                        Grant grant = peer.grant(region.slice(0, 4096), Access.REMOTE_READ, Access.REMOTE_WRITE,
                                Access.REMOTE_ATOMIC);              // only this connection's requests are answered
                        return peer.send(grant.remote().toBytes()).then(peer.onClose()); // revoked when the peer goes
                    })
                    .bindNow();
            // readme:end
            Endpoint client = RivuletClient.create().runOn(transport).remoteAddress("local://store").connectNow();
            // readme:begin
            RemoteMemory target = client.receive().asByteArray().map(RemoteMemory::fromBytes).blockFirst();
            client.put(local.slice(0, 4096), target).then(client.flush()).block();
            long previous = client.fetchAdd(target.slice(0, 8), 1).block();
            // readme:end
            assertThat(segment.get(ValueLayout.JAVA_BYTE, 4095)).isEqualTo((byte) 7);
            assertThat(previous).isEqualTo(0x0707070707070707L);
            assertThat(segment.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(0x0707070707070708L);
            client.dispose();
            client.onClose().block(TIMEOUT);
        } finally {
            transport.dispose();
        }
    }

    @Test
    void theReadmeShowsExactlyTheseExamples() throws IOException {
        Path readme = Path.of("..", "README.md");
        List<String> blocks = new ArrayList<>();
        Matcher m = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL).matcher(Files.readString(readme));
        while (m.find()) {
            blocks.add(normalise(m.group(1)));
        }
        String source = Files.readString(Path.of("src", "test", "java", "dev", "rivulet", "readme",
                "ReadmeExamplesTest.java"));
        List<String> regions = new ArrayList<>();
        Matcher r = Pattern.compile("// readme:begin\\n(.*?)\\n\\s*// readme:end", Pattern.DOTALL).matcher(source);
        while (r.find()) {
            regions.add(r.group(1));
        }
        // The README's blocks are these regions, in order: consecutive regions of one test form one block.
        List<String> expected = List.of(
                normalise(regions.get(0)),
                normalise(regions.get(2)) + "\n\n" + normalise(regions.get(1)),
                normalise(regions.get(3)) + "\n\n// ... on the client:\n" + normalise(regions.get(4)));
        assertThat(blocks).containsExactlyElementsOf(expected);
    }

    /** Drops the common indentation and trailing blank lines, so code reads the same in a test and a README. */
    private static String normalise(String code) {
        List<String> lines = new ArrayList<>(code.lines().toList());
        while (!lines.isEmpty() && lines.getLast().isBlank()) {
            lines.removeLast();
        }
        int indent = lines.stream().filter(l -> !l.isBlank()).mapToInt(l -> l.length() - l.stripLeading().length())
                .min().orElse(0);
        return String.join("\n", lines.stream().map(l -> l.isBlank() ? "" : l.substring(indent)).toList());
    }

    private static byte[] encode(int i) {
        return java.nio.ByteBuffer.allocate(64).putInt(i).array();
    }

    private void process(MemorySegment message) {
        if (message.byteSize() == 64) {
            processed.incrementAndGet();
        }
    }
}
