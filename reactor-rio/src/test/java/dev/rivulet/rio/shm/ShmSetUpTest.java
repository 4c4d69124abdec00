package dev.rivulet.rio.shm;

import dev.rivulet.conformance.Pair;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.error.AuthenticationException;
import dev.rivulet.core.error.ConnectionRefusedException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.security.SecuritySettings;
import dev.rivulet.rio.ShmOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import reactor.test.StepVerifier;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Connection set-up: core's handshake runs on the Unix domain socket before anything is mapped, the shared secret is
 * checked, listeners are bounded like every Rivulet listener, names and the socket directory are checked, and a
 * socket file left by a listener that died is reclaimed.
 */
@Timeout(60)
class ShmSetUpTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final String SECRET = "a shared secret of at least sixteen bytes";

    private final List<Transport> transports = new ArrayList<>();

    @TempDir
    Path temp;

    @BeforeAll
    static void requireShm() {
        ShmTests.requireShm();
    }

    @AfterEach
    void close() {
        transports.forEach(Transport::dispose);
        assertThat(ShmTests.filesOf(ProcessHandle.current().pid())).isEmpty();
    }

    private Transport open(TransportConfig config) {
        Transport t = ShmTests.open(config);
        transports.add(t);
        return t;
    }

    private static Path socketOf(String address) {
        return ShmAddress.socketPath(ShmAddress.directory(null), ShmAddress.nameOf(address));
    }

    @Test
    void theSharedSecretIsProvenBeforeAnythingIsMapped() {
        Transport server = open(TransportConfig.defaults().option("security.secret", SECRET));
        Listener l = server.bind(ShmTests.address("secret")).block(TIMEOUT);
        Transport wrong = open(TransportConfig.defaults().option("security.secret", SECRET.replace('a', 'b')));
        StepVerifier.create(wrong.connect(l.address())).expectError(AuthenticationException.class).verify(TIMEOUT);
        Transport none = open(TransportConfig.defaults());
        StepVerifier.create(none.connect(l.address())).expectError(AuthenticationException.class).verify(TIMEOUT);
        assertThat(ShmTests.filesOf(ProcessHandle.current().pid())).as("nothing was made for them").isEmpty();
        Transport right = open(TransportConfig.defaults().option("security.secret", SECRET));
        Endpoint ep = right.connect(l.address()).block(TIMEOUT);
        Endpoint accepted = l.accepted().blockFirst(TIMEOUT);
        StepVerifier.create(accepted.receive().asString().next().zipWith(ep.send("proved").thenReturn(1),
                (s, x) -> s)).expectNext("proved").verifyComplete();
        ep.dispose();
        l.dispose();
    }

    @Test
    void aNameIsBoundOnceItsSocketGoesWithTheListenerAndAStaleOneIsReclaimed() throws Exception {
        Transport t = open(TransportConfig.defaults());
        String address = ShmTests.address("bound");
        Listener l = t.bind(address).block(TIMEOUT);
        Path socket = socketOf(address);
        assertThat(socket).exists();
        StepVerifier.create(t.bind(address)).expectErrorSatisfies(e -> assertThat(e)
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("already bound")).verify(TIMEOUT);
        l.dispose();
        assertThat(socket).doesNotExist();
        StepVerifier.create(open(TransportConfig.defaults()).connect(address))
                .expectError(ConnectionRefusedException.class).verify(TIMEOUT);
        // A listener that died leaves its socket file behind; nobody answers on it, so a new bind takes it over.
        ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        dead.bind(UnixDomainSocketAddress.of(socket));
        dead.close();
        assertThat(socket).exists();
        Listener again = t.bind(address).block(TIMEOUT);
        Pair p = new Pair(t, t, again, t.connect(address).block(TIMEOUT), again.accepted().blockFirst(TIMEOUT));
        p.close();
        again.dispose();
    }

    @Test
    void silentPeersAreCutAtTheDeadlineAndTheListenerStaysBoundedAndUsable() throws Exception {
        Transport t = open(TransportConfig.defaults().security(SecuritySettings.defaults().maxHandshakes(2)
                .handshakeTimeout(Duration.ofMillis(700))));
        String address = ShmTests.address("silent");
        Listener l = t.bind(address).block(TIMEOUT);
        List<SocketChannel> silent = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            SocketChannel s = SocketChannel.open(UnixDomainSocketAddress.of(socketOf(address)));
            silent.add(s);
        }
        // the third is beyond maxHandshakes and takes the slot of the oldest, closed at once; the other two are
        // closed when their deadline passes
        long start = System.nanoTime();
        int closedEarly = 0;
        for (SocketChannel s : silent) {
            int n = s.read(ByteBuffer.allocate(64)); // blocks until the listener closes it
            assertThat(n).isEqualTo(-1);
            if (System.nanoTime() - start < 500_000_000L) {
                closedEarly++;
            }
        }
        assertThat(closedEarly).as("the oldest was closed before any deadline").isEqualTo(1);
        assertThat(ShmTests.filesOf(ProcessHandle.current().pid())).as("nothing mapped for silent peers").isEmpty();
        // garbage instead of a hello is refused too
        try (SocketChannel junk = SocketChannel.open(UnixDomainSocketAddress.of(socketOf(address)))) {
            junk.write(ByteBuffer.wrap("GET / HTTP/1.1\r\n\r\n".getBytes()));
            ByteBuffer b = ByteBuffer.allocate(256);
            boolean closedByListener = false;
            try {
                while (junk.read(b) >= 0) {
                    b.clear(); // a refusal message, if any
                }
                closedByListener = true;
            } catch (java.net.SocketException reset) {
                closedByListener = true; // closed with our bytes unread
            }
            assertThat(closedByListener).isTrue();
        }
        Endpoint ep = t.connect(address).block(TIMEOUT);
        assertThat(l.accepted().blockFirst(TIMEOUT)).isNotNull();
        ep.dispose();
        silent.forEach(s -> {
            try {
                s.close();
            } catch (Exception ignored) {
                // closed by the listener already
            }
        });
        l.dispose();
    }

    @Test
    void namesTheSocketDirectoryAndOptionsAreChecked() throws Exception {
        Transport t = open(TransportConfig.defaults());
        for (String bad : new String[]{"shm://", "shm://../etc", "shm://a/b", "uring://x", "shm://" + "x".repeat(97)}) {
            StepVerifier.create(t.bind(bad)).as(bad).expectError(InvalidRequestException.class).verify(TIMEOUT);
        }
        Path open = Files.createDirectory(temp.resolve("open"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwxr-xr-x")));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-xr-x"));
        Transport lax = open(TransportConfig.defaults().option(ShmOptions.DIRECTORY, open.toString()));
        StepVerifier.create(lax.bind("shm://lax")).expectErrorSatisfies(e -> assertThat(e)
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("0700")).verify(TIMEOUT);
        Path mine = temp.resolve("mine");
        Transport own = open(TransportConfig.defaults().option(ShmOptions.DIRECTORY, mine.toString()));
        Listener l = own.bind("shm://own").block(TIMEOUT);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(mine))).isEqualTo("rwx------");
        l.dispose();
        assertThatThrownBy(() -> ShmTests.open(TransportConfig.defaults().option(ShmOptions.RING_BYTES, 100_000)))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("power of two");
        assertThatThrownBy(() -> ShmTests.open(TransportConfig.defaults().option(ShmOptions.RING_BYTES, 64 << 10)
                .option(ShmOptions.LARGE_MESSAGE_THRESHOLD, 16 << 10)))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("eighth");
        assertThatThrownBy(() -> ShmTests.open(TransportConfig.defaults().option("shm.noSuchThing", "1")))
                .isInstanceOf(InvalidRequestException.class);
    }
}
