package dev.rivulet.rdma.fabric;

import dev.rivulet.conformance.EchoPeer;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.memory.Buffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.test.StepVerifier;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
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
 * A libfabric listener in a process whose descriptor table runs full (RLIMIT_NOFILE lowered for a child JVM running
 * an {@link EchoPeer}): silent connections pile up until accept fails with "Too many open files", and everything the
 * accept thread does around it (logging, admission, starting the set-up thread) runs in a process that cannot open
 * anything. Once descriptors are free again the listener must accept and serve new clients; one that stopped at a
 * failure there would leave its port open and answer nobody, for good.
 */
@Timeout(180)
class FabricListenerDescriptorExhaustionTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int FILE_LIMIT = 256;

    private Process child;
    private Transport transport;
    private final List<Socket> flood = new ArrayList<>();
    private final BlockingQueue<String> output = new LinkedBlockingQueue<>();

    @BeforeAll
    static void requireLibfabricAndBash() {
        assumeTrue(new FabricTransportProvider().availability().available(),
                () -> new FabricTransportProvider().availability().reason());
        assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "needs /bin/bash to lower the child's file limit");
    }

    @AfterEach
    void stop() throws Exception {
        for (Socket s : flood) {
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
                FabricTransportProvider.class.getName(), "fabric://127.0.0.1:0?provider=tcp", "echo",
                "security.maxHandshakes=" + (4 * FILE_LIMIT),
                "security.maxConnections=" + (4 * FILE_LIMIT), "security.handshakeTimeout=120s"));
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

    private static String take(Buffer b) {
        return b.toUtf8(); // lent by receive(): copied out here
    }

    private void echoOnce(String address, String text) {
        Endpoint ep = transport.connect(address).block(TIMEOUT);
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        StepVerifier echoed = StepVerifier.create(ep.receive().take(1)
                        .map(FabricListenerDescriptorExhaustionTest::take))
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
        transport = new FabricTransportProvider().open(TransportConfig.defaults().option("fabric.provider", "tcp"));
        echoOnce(address, "before the flood"); // the child has loaded everything a connection needs

        // Connections that never say hello, more than the child has descriptors: each admitted one holds a descriptor
        // until its (long) handshake deadline, so accept runs into EMFILE.
        // The kernel queues only a backlog's worth of connections a listener has not accepted: once accept fails,
        // further connects time out, which is as far as a flood can go.
        URI u = URI.create(address);
        InetSocketAddress target = new InetSocketAddress(u.getHost(), u.getPort());
        for (int i = 0; i < FILE_LIMIT + 64; i++) {
            Socket s = new Socket();
            try {
                s.connect(target, 2_000);
            } catch (SocketTimeoutException backlogFull) {
                s.close();
                break;
            }
            flood.add(s);
        }
        assertThat(sawInOutput("Too many open files", TIMEOUT))
                .as("the child's listener reports running out of descriptors").isTrue();

        for (Socket s : flood) {
            s.close();
        }
        flood.clear();
        // The silent connections end, their descriptors come back, and the listener, still there, serves again.
        echoOnce(address, "after the flood");
        assertThat(child.isAlive()).isTrue();
    }
}
