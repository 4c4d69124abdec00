package dev.rivulet.rio.transport.uring;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.memory.Buffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Two processes over io_uring: this JVM connects to an echo server in a second JVM, streams and verifies the echo,
 * then kills the server mid-stream: every pending signal on this side must end with {@link ConnectionLostException},
 * promptly.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UringCrossProcessTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private Process server;
    private Transport client;

    @BeforeAll
    static void requireIoUring() {
        assumeTrue(new UringTransportProvider().availability().available(),
                () -> new UringTransportProvider().availability().reason());
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.destroyForcibly();
        }
        if (client != null) {
            client.dispose();
        }
    }

    private String startServer() throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), UringEchoServerMain.class.getName(),
                "uring://127.0.0.1:0"));
        server = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> address = CompletableFuture.supplyAsync(() -> {
            try {
                String line;
                while ((line = out.readLine()) != null) {
                    if (line.startsWith("LISTENING ")) {
                        return line.substring("LISTENING ".length()).trim();
                    }
                    System.out.println("[server] " + line);
                }
                throw new IllegalStateException("server exited before listening");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        String a = address.get(60, TimeUnit.SECONDS);
        // keep draining the server's output so it never blocks on a full pipe
        Thread.ofPlatform().daemon(true).start(() -> {
            try {
                while (out.readLine() != null) {
                    // discard
                }
            } catch (Exception ignored) {
                // the process went away
            }
        });
        return a;
    }

    private static Buffer message(Endpoint e, long seq, int size) {
        Buffer b = e.memory().allocate(size);
        b.length(size);
        b.capacitySegment().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, seq);
        for (int i = 8; i < size; i++) {
            b.capacitySegment().set(ValueLayout.JAVA_BYTE, i, (byte) (seq + i));
        }
        return b;
    }

    private static long check(Buffer b, int size) {
        try {
            assertThat(b.length()).isEqualTo(size);
            long seq = b.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
            for (int i = 8; i < size; i++) {
                if (b.segment().get(ValueLayout.JAVA_BYTE, i) != (byte) (seq + i)) {
                    throw new AssertionError("message " + seq + " corrupted at byte " + i);
                }
            }
            return seq;
        } finally {
            b.release();
        }
    }

    @Test
    void streamsToAnotherProcessAndBackThenSeesItDie() throws Exception {
        String address = startServer();
        assertThat(address).startsWith("uring://127.0.0.1:");
        client = new UringTransportProvider().open(TransportConfig.defaults());
        Endpoint c = client.connect(address).block(TIMEOUT);

        // 1. a verified echo across the process boundary, small and large messages
        for (int size : new int[]{64, 100_000}) {
            long n = size == 64 ? 20_000 : 200;
            AtomicLong next = new AtomicLong();
            Mono<Long> echoed = c.receive().take(n).map(b -> {
                long seq = check(b, size);
                assertThat(seq).isEqualTo(next.getAndIncrement());
                return seq;
            }).count();
            Mono<Void> sent = c.send(Flux.range(0, (int) n).map(i -> message(c, i, size)));
            StepVerifier.create(echoed.zipWith(sent.thenReturn(1), (x, y) -> x)).expectNext(n)
                    .verifyComplete();
        }

        // 2. kill the server mid-stream: the endless send and the receive both end with ConnectionLostException
        AtomicLong back = new AtomicLong();
        Mono<Void> endless = c.send(Flux.<Buffer, Long>generate(() -> 0L, (s, sink) -> {
            sink.next(message(c, s, 256));
            return s + 1;
        }));
        Flux<Long> receiving = c.receive().map(b -> {
            back.incrementAndGet();
            return check(b, 256);
        });
        CompletableFuture<Throwable> receiveEnd = new CompletableFuture<>();
        receiving.subscribe(x -> {
            if (back.get() == 5_000) {
                server.destroyForcibly();
            }
        }, receiveEnd::complete, () -> receiveEnd.complete(null));
        StepVerifier.create(endless)
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(ConnectionLostException.class))
                .verify(TIMEOUT);
        assertThat(receiveEnd.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
                .isInstanceOf(ConnectionLostException.class);
        StepVerifier.create(c.onClose()).expectComplete().verify(TIMEOUT);
        assertThat(server.waitFor(10, TimeUnit.SECONDS)).isTrue();
        StepVerifier.create(c.flush()).expectError().verify(TIMEOUT);
    }
}
