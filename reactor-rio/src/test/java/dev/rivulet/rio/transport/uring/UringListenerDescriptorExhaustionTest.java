package dev.rivulet.rio.transport.uring;

import dev.rivulet.conformance.EchoPeer;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.rio.stream.StreamAddress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.test.StepVerifier;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A listener in a process whose descriptor table runs full (RLIMIT_NOFILE lowered for a child JVM running an
 * {@link EchoPeer}): accept fails with EMFILE while connections pile up, the listener logs it and backs off, and
 * once descriptors are free again it accepts and serves new clients. A listener that stopped at the first accept
 * failure would leave its port open and answer nobody, for good.
 */
@Timeout(180)
class UringListenerDescriptorExhaustionTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int FILE_LIMIT = 256;

    private Process child;
    private Transport transport;
    private final List<SocketChannel> flood = new ArrayList<>();
    private final BlockingQueue<String> output = new LinkedBlockingQueue<>();

    @BeforeAll
    static void requireIoUringAndBash() {
        assumeTrue(new UringTransportProvider().availability().available(),
                () -> new UringTransportProvider().availability().reason());
        assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "needs /bin/bash to lower the child's file limit");
    }

    @AfterEach
    void stop() throws Exception {
        for (SocketChannel s : flood) {
            s.close();
        }
        if (child != null) {
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        if (transport != null) {
            transport.dispose();
        }
    }

    private String startChild() throws Exception {
        List<String> cmd = new ArrayList<>(List.of("/bin/bash", "-c", "ulimit -n " + FILE_LIMIT + " && exec \"$@\"",
                "bash", ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "-cp", System.getProperty("java.class.path"), EchoPeer.class.getName(),
                UringTransportProvider.class.getName(), "uring://127.0.0.1:0", "echo",
                "security.maxHandshakes=" + (4 * FILE_LIMIT), "security.maxConnections=" + (4 * FILE_LIMIT),
                "security.handshakeTimeout=120s"));
        child = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        Thread.ofPlatform().daemon(true).start(() -> out.lines().forEach(output::add));
        long end = System.nanoTime() + TIMEOUT.toNanos();
        while (System.nanoTime() < end) {
            String line = output.poll(1, TimeUnit.SECONDS);
            if (line != null && line.startsWith("ADDRESS ")) {
                return line.substring("ADDRESS ".length()).trim();
            }
        }
        throw new AssertionError("the child did not listen: " + output);
    }

    private void echoOnce(String address, String text) {
        Endpoint ep = transport.connect(address).block(TIMEOUT);
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        StepVerifier echoed = StepVerifier.create(ep.receive().asString().take(1))
                .expectNext(text).expectComplete().verifyLater();
        ep.send(ep.memory().allocate(bytes.length).write(bytes)).block(TIMEOUT);
        echoed.verify(TIMEOUT);
        ep.dispose();
        StepVerifier.create(ep.onClose()).expectComplete().verify(TIMEOUT);
    }

    private boolean sawInOutput(String text, Duration within) throws InterruptedException {
        long end = System.nanoTime() + within.toNanos();
        List<String> seen = new ArrayList<>();
        while (System.nanoTime() < end) {
            String line = output.poll(200, TimeUnit.MILLISECONDS);
            if (line != null) {
                seen.add(line);
                if (line.contains(text)) {
                    return true;
                }
            }
        }
        System.out.println("[child] " + String.join("\n[child] ", seen));
        return false;
    }

    @Test
    void theListenerKeepsAcceptingAfterRunningOutOfDescriptors() throws Exception {
        String address = startChild();
        transport = new UringTransportProvider().open(TransportConfig.defaults());
        echoOnce(address, "before the flood"); // the child has loaded everything a connection needs

        // Connections that never say hello, more than the child has descriptors: each admitted one holds a descriptor
        // until its (long) handshake deadline, so accept runs into EMFILE.
        InetSocketAddress target = StreamAddress.parse(UringTransport.SCHEME, address);
        for (int i = 0; i < FILE_LIMIT + 64; i++) {
            flood.add(SocketChannel.open(target));
        }
        assertThat(sawInOutput("EMFILE", TIMEOUT)).as("the child's listener reports running out of descriptors")
                .isTrue();

        for (SocketChannel s : flood) {
            s.close();
        }
        flood.clear();
        // The silent connections end, their descriptors come back, and the listener, still there, serves again.
        echoOnce(address, "after the flood");
        assertThat(child.isAlive()).isTrue();
    }
}
