package dev.rivulet.faults;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One resumable-session scenario's two child JVMs: a {@link ResumePeer} in the server namespace and a
 * {@link ResumeClient} in the client namespace, warmed up by one session that is set up and closed, then asked for
 * their {@link ProcessHealth} baselines, which {@link #assertBothRecovered()} compares them with afterwards.
 */
final class ResumeFaultSession implements AutoCloseable {

    static final Duration STEP = FaultSession.STEP;

    private final ChildJvm server;
    private final ChildJvm client;
    private final Set<String> shmBefore;
    private String address;
    private ProcessHealth serverBaseline;
    private ProcessHealth clientBaseline;
    private Line serverReceived;

    private ResumeFaultSession(ChildJvm server, ChildJvm client, Set<String> shmBefore) {
        this.server = server;
        this.client = client;
        this.shmBefore = shmBefore;
    }

    /**
     * Starts both sides of {@code transport} with {@code options} ({@code key=value}); each side keeps a session
     * whose connection is lost for its own session timeout.
     */
    static ResumeFaultSession start(NamespacePair net, FaultTransport transport, long serverSessionTimeoutMs,
                                    long clientSessionTimeoutMs, List<String> options, String logName) {
        Set<String> shm = FaultSession.shmFiles();
        Path logs = FaultReport.targetDir().resolve("fault-logs");
        List<String> serverArgs = new ArrayList<>(List.of(transport.providerClass(),
                transport.bindAddress(net.server().address()), Long.toString(serverSessionTimeoutMs)));
        serverArgs.addAll(transport.options());
        serverArgs.addAll(options);
        List<String> clientArgs = new ArrayList<>(List.of(transport.providerClass(),
                Long.toString(clientSessionTimeoutMs)));
        clientArgs.addAll(transport.options());
        clientArgs.addAll(options);
        ChildJvm server = ChildJvm.start(logName + "-server", net.server(), ResumePeer.class, serverArgs, logs);
        ChildJvm client;
        try {
            client = ChildJvm.start(logName + "-client", net.client(), ResumeClient.class, clientArgs, logs);
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        ResumeFaultSession s = new ResumeFaultSession(server, client, shm);
        try {
            s.address = server.await("ADDRESS", STEP).get("address");
            server.await("READY", STEP);
            client.await("READY", STEP);
            s.connect();
            s.closeAndCheck(0, 0);
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

    /** Sets a session up; the server has it once this returns. */
    void connect() {
        client.send("CONNECT address=" + address + " timeout=20000");
        client.await("CONNECTED", STEP);
        server.await("SESSION", STEP);
    }

    /**
     * Closes the client's session and checks that both sides saw it end cleanly: the client's session and its
     * receive(), and the server's receive() (which completes after the last message) and session; the server's
     * application must have taken {@code messages} messages of {@code bytes} in all, every one the next in sequence and
     * intact. Returns the client's ENDED line (its resumes and replayed messages).
     */
    Line closeAndCheck(long messages, long bytes) {
        assertThat(client.ask("CLOSE", "CLOSED", STEP).get("end")).as("the client's session closes").isEqualTo("OK");
        assertThat(client.await("RECEIVE", STEP).get("end")).as("the client's receive()").isEqualTo("complete");
        Line ended = client.await("ENDED", STEP);
        assertThat(ended.get("end")).as("the client's session: %s", ended).isEqualTo("OK");
        Line received = server.await("RECEIVED", STEP);
        serverReceived = received;
        assertThat(received.get("bad")).as("messages out of sequence or corrupt: %s", received).isEqualTo("0");
        assertThat(received.getLong("count")).as("messages the server's application took").isEqualTo(messages);
        assertThat(received.getLong("bytes")).as("bytes the server's application took").isEqualTo(bytes);
        assertThat(received.get("end")).as("the server's receive() completes at the close").isEqualTo("complete");
        assertThat(server.await("ENDED", STEP).get("end")).as("the server's session").isEqualTo("OK");
        return ended;
    }

    /** The server's RECEIVED line of the session {@link #closeAndCheck} closed last. */
    Line serverReceived() {
        return serverReceived;
    }

    void assertBothRecovered() throws InterruptedException {
        Recovery.assertRecovered(server, serverBaseline);
        Recovery.assertRecovered(client, clientBaseline);
        List<String> ours = Stream.of(client.pid(), server.pid(), ProcessHandle.current().pid())
                .map(Object::toString).toList();
        List<String> created = FaultSession.shmFiles().stream().filter(f -> !shmBefore.contains(f))
                .filter(f -> Stream.of(f.split("\\D+")).anyMatch(ours::contains)).toList();
        assertThat(created).as("files this scenario's processes left in /dev/shm").isEmpty();
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
