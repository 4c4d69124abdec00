package dev.rivulet.conformance;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Transport;
import dev.rivulet.core.spi.TransportProvider;
import reactor.test.StepVerifier;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * An {@link EchoPeer} in a child JVM whose descriptor table is small, for tests of a listener that runs out of
 * descriptors. bash lowers RLIMIT_NOFILE with {@code ulimit -n} and then execs the JVM, so the limit binds the child
 * alone. The child's admission bounds (per source too: every test connection comes from one address) are four times
 * the limit, its listener memory far beyond what its connections hold, and its handshake deadline two minutes, so that connections which never say hello fill the descriptor
 * table long before the listener's own bounds or deadline would turn them away. Every line the child prints is kept, for a test to wait for a transport's report of the
 * exhaustion.
 */
public final class LowDescriptorLimitChild implements AutoCloseable {

    private static final String ADDRESS_LINE = "ADDRESS ";

    /** JVM options for the child, space-separated, for a look inside it (e.g. {@code -Xlog:class+load}). */
    public static final String JVM_OPTIONS_PROPERTY = "rivulet.test.childJvmOptions";
    /** A folder where each child's transcript is written when it is closed, for a look at a run that passed. */
    public static final String TRANSCRIPT_FOLDER_PROPERTY = "rivulet.test.childTranscripts";

    private final Process process;
    private final Path scratch;
    private final BlockingQueue<String> output = new LinkedBlockingQueue<>();
    /** Every line, also those {@link #sawInOutput} took: what a failed test shows. */
    private final List<String> transcript = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final String address;

    private LowDescriptorLimitChild(Process process, Path scratch, Duration listenWithin) throws InterruptedException {
        this.process = process;
        this.scratch = scratch;
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
        Thread.ofPlatform().daemon(true).start(() -> out.lines().forEach(l -> {
            transcript.add(l);
            output.add(l);
        }));
        this.address = awaitAddress(listenWithin);
    }

    /** Whether a child's file limit can be lowered here: it takes {@code /bin/bash}'s {@code ulimit}. */
    public static boolean canLowerTheLimit() {
        return Files.isExecutable(Path.of("/bin/bash"));
    }

    /**
     * Starts an {@link EchoPeer} of {@code provider} bound to {@code bindAddress} under a limit of {@code fileLimit}
     * open files, and returns once it listens; fails if it does not within {@code listenWithin}.
     */
    public static LowDescriptorLimitChild start(int fileLimit, Class<? extends TransportProvider> provider,
                                                String bindAddress, Duration listenWithin)
            throws IOException, InterruptedException {
        return start(fileLimit, provider, bindAddress, listenWithin, ChildClassPath.AS_IS);
    }

    /** As {@link #start(int, Class, String, Duration)}, the child loading its classes as {@code classes} says. */
    public static LowDescriptorLimitChild start(int fileLimit, Class<? extends TransportProvider> provider,
                                                String bindAddress, Duration listenWithin, ChildClassPath classes)
            throws IOException, InterruptedException {
        Path scratch = Files.createTempDirectory("rivulet-child-classes-");
        List<String> cmd = new ArrayList<>(List.of("/bin/bash", "-c", "ulimit -n " + fileLimit + " && exec \"$@\"",
                "bash", ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED"));
        for (String option : System.getProperty(JVM_OPTIONS_PROPERTY, "").split(" ")) {
            if (!option.isBlank()) {
                cmd.add(option);
            }
        }
        cmd.addAll(List.of("-cp", classes.build(scratch), EchoPeer.class.getName(),
                provider.getName(), bindAddress, "echo",
                "security.maxHandshakes=" + (4 * fileLimit), "security.maxConnections=" + (4 * fileLimit),
                "security.maxHandshakesPerSource=" + (4 * fileLimit),
                "security.maxConnectionsPerSource=" + (4 * fileLimit), "security.listenerMemory=64GiB",
                "security.handshakeTimeout=120s"));
        Process process = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            return new LowDescriptorLimitChild(process, scratch, listenWithin);
        } catch (AssertionError | InterruptedException e) {
            process.destroyForcibly();
            ChildClassPath.delete(scratch);
            throw e;
        }
    }

    /** The child's process id (bash execs the JVM, so it is the JVM's). */
    public long pid() {
        return process.pid();
    }

    private String awaitAddress(Duration within) throws InterruptedException {
        long end = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < end) {
            String line = output.poll(1, TimeUnit.SECONDS);
            if (line != null && line.startsWith(ADDRESS_LINE)) {
                return line.substring(ADDRESS_LINE.length()).trim();
            }
        }
        throw new AssertionError("the child did not listen: " + output);
    }

    /** The address the child's listener is bound to. */
    public String address() {
        return address;
    }

    /**
     * Whether the child prints a line containing {@code text} within {@code within}. The lines read meanwhile are
     * printed when it does not, since they are what tells why.
     */
    public boolean sawInOutput(String text, Duration within) throws InterruptedException {
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

    /**
     * Connects {@code client} to the child, has {@code text} echoed back, and closes the connection again: proof the
     * child's listener accepts and serves.
     */
    public void echoOnce(Transport client, String text, Duration timeout) {
        Endpoint ep = client.connect(address).block(timeout);
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        StepVerifier echoed = StepVerifier.create(ep.receive().asString().take(1))
                .expectNext(text).expectComplete().verifyLater();
        ep.send(ep.memory().allocate(bytes.length).write(bytes)).block(timeout);
        echoed.verify(timeout);
        ep.dispose();
        StepVerifier.create(ep.onClose()).expectComplete().verify(timeout);
    }

    /** Everything the child printed so far. */
    public String transcript() {
        return String.join("\n", transcript);
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Kills the child and waits a while for it to be gone. */
    @Override
    public void close() {
        try {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the child is killed all the same; only the wait is cut short
        } finally {
            ChildClassPath.delete(scratch);
            String folder = System.getProperty(TRANSCRIPT_FOLDER_PROPERTY);
            if (folder != null) {
                try {
                    Files.writeString(Path.of(folder, "child-" + process.pid() + ".log"), transcript());
                } catch (IOException e) {
                    System.out.println("could not write the child's transcript: " + e);
                }
            }
        }
    }
}
