package dev.rivulet.faults;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One scenario's two child JVMs: a {@link FaultPeer} in the server namespace and a {@link FaultClient} in the client
 * namespace, started together, warmed up by one connection that is opened and closed, then asked for their
 * {@link ProcessHealth} baselines. {@link #connect()} opens the scenario's connection and returns the server's grant
 * handle; {@link #assertRecovered} compares a surviving side with its baseline.
 */
final class FaultSession implements AutoCloseable {

    static final Duration STEP = Duration.ofSeconds(30);

    private final ChildJvm server;
    private final ChildJvm client;
    private final Set<String> shmBefore;
    private String address;
    private String endpointId;
    private ProcessHealth serverBaseline;
    private ProcessHealth clientBaseline;

    private FaultSession(ChildJvm server, ChildJvm client, Set<String> shmBefore) {
        this.server = server;
        this.client = client;
        this.shmBefore = shmBefore;
    }

    /**
     * Starts both sides of {@code transport}; the server in {@code mode} ({@code verify} or {@code echo}), both with
     * {@code options} ({@code key=value}).
     */
    static FaultSession start(NamespacePair net, FaultTransport transport, String mode, List<String> options,
                              String logName) {
        Set<String> shm = shmFiles();
        Path logs = FaultReport.targetDir().resolve("fault-logs");
        List<String> serverArgs = new ArrayList<>(List.of(transport.providerClass(),
                transport.bindAddress(net.server().address()), mode));
        serverArgs.addAll(transport.options());
        serverArgs.addAll(options);
        List<String> clientArgs = new ArrayList<>(List.of(transport.providerClass()));
        clientArgs.addAll(transport.options());
        clientArgs.addAll(options);
        ChildJvm server = ChildJvm.start(logName + "-server", net.server(), FaultPeer.class, serverArgs, logs);
        ChildJvm client;
        try {
            client = ChildJvm.start(logName + "-client", net.client(), FaultClient.class, clientArgs, logs);
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        FaultSession s = new FaultSession(server, client, shm);
        try {
            s.address = server.await("ADDRESS", STEP).get("address");
            server.await("READY", STEP);
            client.await("READY", STEP);
            s.connect();
            s.closeClient();
            s.serverBaseline = ProcessHealth.parse(server.ask("BASELINE", STEP));
            s.clientBaseline = ProcessHealth.parse(client.ask("BASELINE", STEP));
            return s;
        } catch (RuntimeException | Error e) {
            s.close();
            throw e;
        }
    }

    ChildJvm server() {
        return server;
    }

    ChildJvm client() {
        return client;
    }

    /** Connects the client to the server; returns the hex handle of the window the server granted. */
    String connect() {
        client.send("CONNECT address=" + address + " timeout=20000");
        client.await("CONNECTED", STEP);
        endpointId = server.await("ACCEPTED", STEP).get("id");
        return server.await("GRANT", STEP).get("handle");
    }

    /** The server's next line of {@code kind} about the endpoint of the latest {@link #connect()}. */
    Line awaitServer(String kind, Duration timeout) {
        String id = endpointId;
        return server.await(kind, l -> id.equals(l.getOr("id", "")), timeout);
    }

    /** Closes the client's endpoint gracefully and waits until the server's side has closed too. */
    void closeClient() {
        assertThat(client.ask("CLOSE", "CLOSED", STEP).get("end")).as("client endpoint closes").isEqualTo("OK");
        awaitServer("ENDED", STEP);
    }

    /** The server's CRC32C of {@code length} bytes of its window at {@code offset}. */
    String serverChecksum(long offset, long length) {
        return server.ask("CHECKSUM offset=" + offset + " length=" + length, STEP).get("crc");
    }

    void assertServerRecovered() throws InterruptedException {
        Recovery.assertRecovered(server, serverBaseline);
    }

    void assertClientRecovered() throws InterruptedException {
        Recovery.assertRecovered(client, clientBaseline);
        assertNoShmFilesOf(client.pid(), server.pid(), ProcessHandle.current().pid());
    }

    void assertBothRecovered() throws InterruptedException {
        assertServerRecovered();
        assertClientRecovered();
    }

    /**
     * No file appeared in /dev/shm during the scenario whose name carries one of {@code pids} (a killed process
     * cannot report its own). Files made meanwhile by unrelated processes on the host are not this scenario's.
     */
    void assertNoShmFilesOf(long... pids) {
        Set<String> ours = Arrays.stream(pids).mapToObj(Long::toString).collect(Collectors.toSet());
        List<String> created = shmFiles().stream().filter(f -> !shmBefore.contains(f))
                .filter(f -> Stream.of(f.split("\\D+")).anyMatch(ours::contains)).toList();
        assertThat(created).as("files this scenario's processes left in /dev/shm").isEmpty();
    }

    /** The names of the files in /dev/shm now. */
    static Set<String> shmFiles() {
        try (Stream<Path> files = Files.list(Path.of("/dev/shm"))) {
            return files.map(p -> p.getFileName().toString()).collect(Collectors.toSet());
        } catch (IOException e) {
            return Set.of();
        }
    }

    @Override
    public void close() {
        try {
            client.close();
        } finally {
            server.close();
        }
    }
}
