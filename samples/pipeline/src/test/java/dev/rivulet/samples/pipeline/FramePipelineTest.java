package dev.rivulet.samples.pipeline;

import dev.rivulet.conformance.Requirements;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.error.AuthenticationException;
import dev.rivulet.core.error.ConnectionRefusedException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.LeakDetector;
import dev.rivulet.core.spi.TransportProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.reactivestreams.Publisher;
import reactor.core.Exceptions;
import reactor.test.StepVerifier;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The pipeline on each transport this machine has: the in-JVM one always, libfabric's tcp and io_uring on loopback
 * where they are available (skipped with the reason otherwise). Every test ends with no buffer left unreleased.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class FramePipelineTest {

    private static final Duration VERIFY = Duration.ofSeconds(60);

    private final RunObserver observer = new RunObserver();
    private final AtomicInteger connections = new AtomicInteger();
    private String provider;
    private Transport receiving;
    private Transport sending;
    private RivuletServer.BoundServer server;

    @BeforeAll
    static void detectLeaks() {
        LeakDetector.enable();
    }

    @BeforeEach
    void forgetEarlierBuffers() {
        LeakDetector.reset();
    }

    @AfterEach
    void closeAndCheckForLeaks() {
        if (server != null) {
            server.disposeNow(Duration.ofSeconds(10));
        }
        if (sending != null) {
            sending.dispose();
        }
        if (receiving != null) {
            receiving.dispose();
        }
        LeakDetector.awaitNoLeaks(Duration.ofSeconds(10));
    }

    /** Every frame reaches the receiver once, each sensor's in order, and every batch is acknowledged. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"local", "libfabric", "io_uring"})
    void everyFrameIsAggregatedOnceInOrderAndAcknowledged(String provider) {
        open(provider);
        FrameReceiver receiver = new FrameReceiver();
        bind(anyAddress(), receiver::handle);
        PipelineSettings settings = PipelineSettings.defaults().withBatchSize(50).withMaxOutstanding(4);

        StepVerifier.create(sender(server.address(), settings).run(SensorFrames.generate(6, 500)))
                .assertNext(report -> {
                    assertThat(report.frames()).isEqualTo(3000);
                    assertThat(report.batches()).isGreaterThanOrEqualTo(3000 / 50); // more if cut by time
                    assertThat(report.maxOutstanding()).isBetween(1, 4);
                    FrameReceiver.ReceiverStats stats = receiver.stats();
                    assertThat(stats.complete(6, 500)).as("%s", stats).isTrue();
                    assertThat(stats.batches()).isEqualTo(report.batches());
                    assertThat(stats.mean()).isCloseTo(22.0, offset(1.0));
                })
                .expectComplete()
                .verify(VERIFY);
    }

    /** The run id written into the Reactor context where the run is subscribed reaches the completion observer. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"local", "libfabric", "io_uring"})
    void theRunIdReachesTheObserverWithEverySend(String provider) {
        open(provider);
        bind(anyAddress(), new FrameReceiver()::handle);

        PipelineReport report = sender(server.address(), PipelineSettings.defaults())
                .run(SensorFrames.generate(4, 250))
                .contextWrite(RunObserver.runId("run-ctx"))
                .block(VERIFY);

        assertThat(report).isNotNull();
        assertThat(observer.runs()).containsExactly("run-ctx"); // no send completed without it
        assertThat(observer.sends("run-ctx")).isEqualTo(report.batches());
        assertThat(observer.bytes("run-ctx"))
                .isEqualTo(report.batches() * Batch.wireSize(0) + report.frames() * Frame.WIRE_SIZE);
    }

    /**
     * The receiver is not up when the run starts: each connect is refused (retryable), retried with backoff, and the
     * run goes through once the receiver binds.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"local", "libfabric", "io_uring"})
    void connectsOnceTheReceiverComesUp(String provider) {
        open(provider);
        String address = addressAt(freePort());
        FrameReceiver receiver = new FrameReceiver();
        FrameSender sender = sender(address, PipelineSettings.defaults());

        StepVerifier.create(sender.run(SensorFrames.generate(3, 200)))
                .then(() -> {
                    awaitRetries(sender, 2);
                    bind(address, receiver::handle);
                })
                .assertNext(report -> assertThat(report.frames()).isEqualTo(600))
                .expectComplete()
                .verify(VERIFY);

        assertThat(sender.connectRetries()).isGreaterThanOrEqualTo(2);
        assertThat(receiver.stats().complete(3, 200)).isTrue();
        assertThat(connections).hasValue(1);
    }

    /** Retries are bounded: when the receiver never comes, the run fails with the refusal after the last retry. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"local", "libfabric", "io_uring"})
    void givesUpWhenTheReceiverNeverComes(String provider) {
        open(provider);
        FrameSender sender = sender(addressAt(freePort()), PipelineSettings.defaults().withMaxRetries(3)
                .withBackoff(Duration.ofMillis(20), Duration.ofMillis(100)));

        StepVerifier.create(sender.run(SensorFrames.generate(1, 10)))
                .expectErrorSatisfies(e -> {
                    assertThat(Exceptions.isRetryExhausted(e)).as("%s", e).isTrue();
                    assertThat(e.getCause()).isInstanceOf(ConnectionRefusedException.class);
                })
                .verify(VERIFY);
        assertThat(sender.connectRetries()).isEqualTo(3);
    }

    /**
     * A receiver that takes batches but never acknowledges them: the first batch's wait times out and the run fails
     * with the timeout, which is not a retryable transport failure, so nothing is retried or reconnected.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"local", "libfabric", "io_uring"})
    void anUnacknowledgedBatchTimesOutWithoutRetrying(String provider) {
        open(provider);
        bind(anyAddress(), ep -> ep.receive().then()); // receives (and releases) every batch, answers nothing
        FrameSender sender = sender(server.address(), PipelineSettings.defaults()
                .withAckTimeout(Duration.ofMillis(300)));

        long start = System.nanoTime();
        StepVerifier.create(sender.run(SensorFrames.generate(2, 1000)))
                .expectError(TimeoutException.class)
                .verify(VERIFY);

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
        assertThat(sender.connectRetries()).isZero();
        assertThat(connections).hasValue(1);
    }

    /**
     * A receiver that hangs up after the first batch: the batches waiting for their acknowledgement fail with a
     * transport error that is not retryable, and the run ends with it instead of reconnecting.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"local", "libfabric", "io_uring"})
    void aReceiverThatHangsUpFailsTheRunWithoutReconnecting(String provider) {
        open(provider);
        bind(anyAddress(), ep -> ep.receive().take(1).then()); // the endpoint closes after one batch

        FrameSender sender = sender(server.address(), PipelineSettings.defaults());
        StepVerifier.create(sender.run(SensorFrames.generate(2, 1000)))
                .expectErrorSatisfies(e -> {
                    assertThat(e).isInstanceOf(TransportException.class);
                    assertThat(((TransportException) e).isRetryable()).as("%s", e).isFalse();
                })
                .verify(VERIFY);
        assertThat(sender.connectRetries()).isZero();
        assertThat(connections).hasValue(1);
    }

    /**
     * The retry filter at connect: a receiver that demands another shared secret refuses the handshake with an
     * authentication failure, which is not retryable, so the run fails at once instead of knocking again. (The
     * in-JVM transport has no handshake, hence only the network ones.)
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"libfabric", "io_uring"})
    void aRefusedSecretIsNotRetried(String provider) {
        open(provider, TransportConfig.defaults().option("security.secret", "the receiver's own secret"),
                TransportConfig.defaults().option("security.secret", "not the receiver's secret"));
        bind(anyAddress(), new FrameReceiver()::handle);

        FrameSender sender = sender(server.address(), PipelineSettings.defaults());
        StepVerifier.create(sender.run(SensorFrames.generate(1, 10)))
                .expectError(AuthenticationException.class)
                .verify(VERIFY);
        assertThat(sender.connectRetries()).isZero();
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** Opens a receiving and a sending transport of {@code provider}, or skips the test saying why it cannot. */
    private void open(String provider) {
        open(provider, TransportConfig.defaults(), TransportConfig.defaults());
    }

    private void open(String provider, TransportConfig receiverConfig, TransportConfig senderConfig) {
        Optional<TransportProvider> p = Transports.provider(provider);
        assumeTrue(p.isPresent(), provider + " is not on the class path");
        Requirements.assume(p.get().availability(), provider);
        this.provider = provider;
        receiving = Transports.open(provider, receiverConfig);
        sending = Transports.open(provider, senderConfig.observer(observer));
    }

    private FrameSender sender(String address, PipelineSettings settings) {
        return new FrameSender(RivuletClient.create().runOn(sending).remoteAddress(address), settings);
    }

    private void bind(String address, Function<Endpoint, Publisher<Void>> handler) {
        server = RivuletServer.create()
                .runOn(receiving)
                .bindAddress(address)
                .doOnConnection(ep -> connections.incrementAndGet())
                .handle(handler)
                .bindNow(Duration.ofSeconds(10));
    }

    private String anyAddress() {
        return addressAt(0);
    }

    /** An address of this test's provider on loopback ({@code port} 0: any); local addresses are unique names. */
    private String addressAt(int port) {
        return switch (provider) {
            case "libfabric" -> "fabric://127.0.0.1:" + port + "?provider=tcp";
            case "io_uring" -> "uring://127.0.0.1:" + port;
            default -> "local://pipeline-" + UUID.randomUUID();
        };
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void awaitRetries(FrameSender sender, int retries) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (sender.connectRetries() < retries) {
            assertThat(System.nanoTime()).as("%d connect retries", retries).isLessThan(deadline);
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
