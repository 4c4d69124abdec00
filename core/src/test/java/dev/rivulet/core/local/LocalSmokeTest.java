package dev.rivulet.core.local;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.memory.Buffer;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class LocalSmokeTest {

    @Test
    void streamsMessagesInOrder() {
        Transport server = new LocalTransportProvider().open(TransportConfig.defaults());
        Transport client = new LocalTransportProvider().open(TransportConfig.defaults());
        try {
            Listener l = server.bind("local://smoke").block();
            Endpoint c = client.connect("local://smoke").block();
            Endpoint s = l.accepted().blockFirst();
            int n = 10_000;
            Flux<Buffer> msgs = Flux.range(0, n).map(i -> {
                int v = i;
                return client.memory().allocate(4).write(new byte[]{(byte) (v >>> 24), (byte) (v >>> 16),
                        (byte) (v >>> 8), (byte) v});
            });
            c.send(msgs).subscribe();
            StepVerifier.create(s.receive().asByteArray().map(a -> {
                        return ((a[0] & 0xff) << 24) | ((a[1] & 0xff) << 16) | ((a[2] & 0xff) << 8) | (a[3] & 0xff);
                    }).take(n).collectList())
                    .assertNext(list -> {
                        assertThat(list).hasSize(n);
                        for (int i = 0; i < n; i++) {
                            assertThat(list.get(i)).isEqualTo(i);
                        }
                    })
                    .verifyComplete();
        } finally {
            client.dispose();
            server.dispose();
        }
    }
}
