package dev.rivulet.core.local;

import dev.rivulet.conformance.Pair;
import dev.rivulet.core.EndpointStats;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.memory.Buffer;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The local wire coalesces (it advertises a batch size), so a backlog of small messages must produce frames. */
class LocalCoalescingTest {

    @Test
    void backlogOfSmallMessagesIsSentInCoalescedFrames() {
        Transport a = new LocalTransportProvider().open(TransportConfig.defaults());
        Transport b = new LocalTransportProvider().open(TransportConfig.defaults());
        try {
            Pair p = Pair.connect(a, b, "local://coalesce");
            int n = 20_000;
            StepVerifier.create(p.server().receive().take(n).count()
                            .zipWith(p.client().send(Flux.range(0, n).map(i -> p.client().memory().allocate(8)))
                                    .thenReturn(1), (c, x) -> c))
                    .expectNext((long) n).verifyComplete();
            EndpointStats s = p.client().stats().block(Duration.ofSeconds(5));
            assertThat(s.coalescedFrames()).isPositive();
            assertThat(s.messagesSent()).isEqualTo(n);
            p.close();
        } finally {
            a.dispose();
            b.dispose();
        }
    }
}
