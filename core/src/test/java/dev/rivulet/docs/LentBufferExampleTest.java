package dev.rivulet.docs;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.error.InvalidMemoryException;
import dev.rivulet.core.memory.Buffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The example of "How long a lent buffer is valid" in {@code docs/api-by-example.md}, compiled and run (regions
 * between {@code // snippet:begin NAME} and {@code // snippet:end}, checked by {@code DocsSnippetsTest}).
 */
class LentBufferExampleTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private Transport transport;
    private RivuletServer.BoundServer server;
    private Endpoint ep;

    @BeforeEach
    void open() {
        transport = Transports.open("local", TransportConfig.defaults());
        server = RivuletServer.create().runOn(transport).bindAddress("local://lent-example")
                .handle(peer -> peer.send(Flux.range(0, 1_000).map(i -> {
                    Buffer b = peer.memory().allocate(8);
                    b.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, i);
                    return b;
                })))
                .bindNow();
        ep = RivuletClient.create().runOn(transport).remoteAddress("local://lent-example").connectNow();
    }

    @AfterEach
    void close() {
        ep.dispose();
        server.disposeNow(TIMEOUT);
        transport.dispose();
    }

    @Test
    void aLentBufferIsReadInPlaceDuringOnNextAndRefusedAfter() {
        AtomicLong sum = new AtomicLong();
        // snippet:begin receive-in-place
        Buffer last = ep.receive()
                .take(1_000)
                .doOnNext(b -> sum.addAndGet(b.get(ValueLayout.JAVA_LONG_UNALIGNED, 0))) // in place: no copy
                .blockLast();                                   // kept without retain(): a mistake
        // last.get(...), last.segment(), last.toArray() now throw InvalidMemoryException
        // snippet:end
        assertThat(sum.get()).isEqualTo(999L * 1_000 / 2);
        assertThatThrownBy(() -> last.get(ValueLayout.JAVA_LONG_UNALIGNED, 0))
                .isInstanceOf(InvalidMemoryException.class);
    }
}
