package dev.rivulet.conformance;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.spi.TransportProvider;
import reactor.test.StepVerifier;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A listener's process runs out of descriptors while some of its connections fail: the hostile-client episode the
 * descriptor-exhaustion tests of each TCP-based transport replay. An {@link EchoPeer} runs in a child JVM under a
 * low RLIMIT_NOFILE ({@link LowDescriptorLimitChild}), loading its classes as a {@link ChildClassPath} says.
 *
 * <ol>
 *   <li>This JVM connects four endpoints to it and has each echo once; another child JVM ({@link BusyClients})
 *       connects four more that keep it busy. The child has loaded what a working connection needs, and nothing of
 *       what a closing or failing one needs.</li>
 *   <li>Silent connections fill the child's descriptor table until its listener reports the exhaustion.</li>
 *   <li>This JVM closes its third endpoint, makes the child's handler of its fourth throw an Error
 *       ({@link EchoPeer#THROW}), and the busy clients are killed: six connections end, one cleanly, one failed on the
 *       child's loop and four broken, in a process that cannot open a file, so cannot load a class from a folder or a
 *       jar not yet open. Their sockets must be closed all the same, while the table is still full: the kernel's own
 *       table says so ({@link ProcSockets}).</li>
 *   <li>The silent connections go away. The two connections of this JVM still echo, and a new client is served by
 *       the same listener.</li>
 * </ol>
 */
public final class DescriptorExhaustionScenario {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int FILE_LIMIT = 256;
    private static final int SURVIVORS = 2;
    private static final int DOOMED = 4;

    private DescriptorExhaustionScenario() {
    }

    /** Skips the test where a child's file limit cannot be lowered or the kernel cannot tell its sockets. */
    public static void assumeSupported() {
        assumeTrue(LowDescriptorLimitChild.canLowerTheLimit(), "needs /bin/bash to lower the child's file limit");
        assumeTrue(ProcSockets.available(), "needs Linux's /proc to see the child's sockets");
    }

    /**
     * Runs the episode against a child listening at {@code bindAddress}; {@code options} go to every transport
     * (this JVM's and the busy clients'); the child's listener reports the exhaustion with {@code exhaustionText}.
     */
    public static void run(Class<? extends TransportProvider> provider, String bindAddress,
                           Map<String, String> options, String exhaustionText, ChildClassPath classes)
            throws Exception {
        TransportConfig config = TransportConfig.defaults();
        for (Map.Entry<String, String> o : options.entrySet()) {
            config = config.option(o.getKey(), o.getValue());
        }
        List<Socket> flood = new ArrayList<>();
        Process busy = null;
        try (LowDescriptorLimitChild child = LowDescriptorLimitChild.start(FILE_LIMIT, provider, bindAddress, TIMEOUT,
                classes)) {
            Transport transport = provider.getDeclaredConstructor().newInstance().open(config);
            try {
                List<Endpoint> survivors = new ArrayList<>();
                for (int i = 0; i < SURVIVORS; i++) {
                    Endpoint ep = transport.connect(child.address()).block(TIMEOUT);
                    echo(ep, "before the flood " + i);
                    survivors.add(ep);
                }
                Set<Long> closed = new HashSet<>();
                Endpoint closing = connect(transport, child, "closed during the flood", closed);
                Set<Long> faulted = new HashSet<>();
                Endpoint faulting = connect(transport, child, "whose handler fails during the flood", faulted);
                busy = startBusyClients(provider, child.address(), options);
                Set<Long> killed = ProcSockets.connectedTo(child.pid(), ProcSockets.localPorts(busy.pid()));
                assertThat(killed).as("the child's sockets of the busy clients' connections")
                        .hasSizeGreaterThanOrEqualTo(DOOMED);

                fill(child, flood);
                assertThat(child.sawInOutput(exhaustionText, TIMEOUT))
                        .as("the child's listener reports running out of descriptors").isTrue();

                closing.dispose(); // the child's side closes on the peer's word: the clean path, under exhaustion
                faulting.send(faulting.memory().allocate(EchoPeer.THROW.length())
                        .write(EchoPeer.THROW.getBytes(StandardCharsets.UTF_8))).block(TIMEOUT); // its handler throws
                busy.destroyForcibly().waitFor(10, TimeUnit.SECONDS); // and four connections just break
                awaitGone(child, closed, "of the connection its peer closed");
                awaitGone(child, faulted, "of the connection whose handler threw");
                awaitGone(child, killed, "of the connections whose peer was killed");
                StepVerifier.create(faulting.onClose()).as("the child resets the connection whose handler threw")
                        .expectComplete().verify(TIMEOUT);

                for (Socket s : flood) {
                    s.close();
                }
                flood.clear();
                for (int i = 0; i < SURVIVORS; i++) {
                    echo(survivors.get(i), "after the flood " + i);
                }
                child.echoOnce(transport, "a new client after the flood", TIMEOUT);
                assertThat(child.isAlive()).isTrue();
            } catch (AssertionError | RuntimeException e) {
                e.addSuppressed(new AssertionError("the child printed:\n" + child.transcript()));
                throw e;
            } finally {
                transport.dispose();
            }
        } finally {
            for (Socket s : flood) {
                s.close();
            }
            if (busy != null) {
                busy.destroyForcibly();
            }
        }
    }

    /**
     * Connects an endpoint to the child, has it echo once, and adds the child's sockets of its connection to
     * {@code sockets}: those connected to the local ports this JVM opened meanwhile.
     */
    private static Endpoint connect(Transport transport, LowDescriptorLimitChild child, String which,
                                    Set<Long> sockets) throws IOException {
        long self = ProcessHandle.current().pid();
        Set<Integer> before = ProcSockets.localPorts(self);
        Endpoint ep = transport.connect(child.address()).block(TIMEOUT);
        echo(ep, "before the flood, " + which);
        Set<Integer> ports = ProcSockets.localPorts(self);
        ports.removeAll(before);
        sockets.addAll(ProcSockets.connectedTo(child.pid(), ports));
        assertThat(sockets).as("the child's sockets of the connection " + which).isNotEmpty();
        return ep;
    }

    /** Has {@code text} echoed back on {@code ep}, which stays open. */
    static void echo(Endpoint ep, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        StepVerifier echoed = StepVerifier.create(ep.receive().asString().take(1))
                .expectNext(text).expectComplete().verifyLater();
        ep.send(ep.memory().allocate(bytes.length).write(bytes)).block(TIMEOUT);
        echoed.verify(TIMEOUT);
    }

    /**
     * Connections that never say hello, more than the child has descriptors: each admitted one holds a descriptor
     * until its (long) handshake deadline, so accept runs into EMFILE. The kernel queues only a backlog's worth of
     * connections a listener has not accepted: once accept fails, further connects time out, which is as far as a
     * flood can go.
     */
    private static void fill(LowDescriptorLimitChild child, List<Socket> flood) throws IOException {
        URI u = URI.create(child.address());
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
    }

    /** Waits until the child holds none of the sockets {@code inodes}, those {@code of} some connections. */
    private static void awaitGone(LowDescriptorLimitChild child, Set<Long> inodes, String of) throws IOException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        Set<Long> left = new HashSet<>(inodes);
        while (true) {
            left.retainAll(ProcSockets.socketInodes(child.pid()));
            if (left.isEmpty()) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(left.size() + " of the " + inodes.size() + " sockets " + of + " are still "
                        + "open in the child (" + ProcSockets.descriptors(child.pid()) + " descriptors)");
            }
            LockSupport.parkNanos(50_000_000);
        }
    }

    private static Process startBusyClients(Class<? extends TransportProvider> provider, String address,
                                            Map<String, String> options) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                BusyClients.class.getName(), provider.getName(), address, Integer.toString(DOOMED)));
        options.forEach((k, v) -> cmd.add(k + "=" + v));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        CompletableFuture<Void> connected = new CompletableFuture<>();
        Thread.ofPlatform().daemon(true).start(() -> out.lines().forEach(line -> {
            seen.add(line);
            if (line.startsWith("CONNECTED ")) {
                connected.complete(null);
            }
        }));
        try {
            connected.get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            p.destroyForcibly();
            throw new AssertionError("the busy clients did not connect: " + seen, e);
        }
        return p;
    }
}
