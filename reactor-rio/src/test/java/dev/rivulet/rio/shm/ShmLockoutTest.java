package dev.rivulet.rio.shm;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.test.StepVerifier;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sockets that connect to an shm:// listener and say nothing, renewed before their deadline, must not keep a process
 * that means it out: a newcomer takes the slot of the oldest unfinished set-up.
 */
@Timeout(60)
class ShmLockoutTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private final List<Transport> transports = new ArrayList<>();
    private final List<SocketChannel> silent = new ArrayList<>();

    @BeforeAll
    static void requireShm() {
        ShmTests.requireShm();
    }

    @AfterEach
    void close() throws IOException {
        for (SocketChannel s : silent) {
            s.close();
        }
        transports.forEach(Transport::dispose);
    }

    private Transport open(TransportConfig config) {
        Transport t = ShmTests.open(config);
        transports.add(t);
        return t;
    }

    @Test
    void aThousandSilentSocketsDoNotKeepAClientOut() throws Exception {
        Transport server = open(TransportConfig.defaults().option("security.handshakeTimeout", "60s"));
        String address = ShmTests.address("lockout");
        Listener l = server.bind(address).block(TIMEOUT);
        Path socket = ShmAddress.socketPath(ShmAddress.directory(null), ShmAddress.nameOf(address));
        for (int i = 0; i < 1000; i++) {
            silent.add(SocketChannel.open(UnixDomainSocketAddress.of(socket)));
        }
        long start = System.nanoTime();
        Endpoint ep = open(TransportConfig.defaults()).connect(address).block(TIMEOUT);
        long took = (System.nanoTime() - start) / 1_000_000;
        Endpoint accepted = l.accepted().blockFirst(TIMEOUT);
        StepVerifier.create(accepted.receive().asString().next().zipWith(ep.send("in").thenReturn(1), (s, x) -> s))
                .expectNext("in").verifyComplete();
        assertThat(took).as("connect beside 1000 silent sockets").isLessThan(3_000);
        ep.dispose();
    }
}
