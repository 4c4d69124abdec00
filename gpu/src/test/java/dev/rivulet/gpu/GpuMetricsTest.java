package dev.rivulet.gpu;

import dev.rivulet.conformance.Pair;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.gpu.host.HostMemoryStandIn;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The rivulet.gpu.* meters say what was copied, how much staging is in use, and which path each transfer took. */
class GpuMetricsTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @Test
    void metersFollowATransferAndGoWithTheMemoryType() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Transport t = Transports.open("local", TransportConfig.defaults());
        Pair pair = Pair.connect(t, t, "local://gpu-metrics");
        HostMemoryStandIn m = HostMemoryStandIn.create();
        m.metrics().bindTo(registry);
        DeviceTransferConfig config = DeviceTransferConfig.defaults().chunkSize(64 << 10).stagingBuffers(2);
        DeviceTransfers tx = DeviceTransfers.open(t, pair.client(), m, config).block(TIMEOUT);
        DeviceTransfers rx = DeviceTransfers.open(t, pair.server(), m, config).block(TIMEOUT);
        DeviceBuffer src = m.allocate(300 << 10);
        DeviceBuffer dst = m.allocate(300 << 10);
        try {
            assertThat(registry.get("rivulet.gpu.staging.buffers").tag("memory", "host-stand-in").gauge().value())
                    .isEqualTo(4);
            assertThat(registry.get("rivulet.gpu.memory.allocated").gauge().value()).isEqualTo(600 << 10);

            Mono.when(rx.receiveInto(dst.slice()), tx.send(src.slice())).block(TIMEOUT);

            assertThat(counter(registry, "rivulet.gpu.transfers", "send", "success")).isEqualTo(1);
            assertThat(counter(registry, "rivulet.gpu.transfers", "receive", "success")).isEqualTo(1);
            assertThat(registry.get("rivulet.gpu.transfer.bytes").tags("op", "send", "path", "staged")
                    .functionCounter().count()).isEqualTo(300 << 10);
            assertThat(registry.get("rivulet.gpu.copy.bytes").tag("direction", "to_host").functionCounter().count())
                    .isEqualTo(300 << 10);
            assertThat(registry.get("rivulet.gpu.copy.time").tag("direction", "to_device").functionTimer().count())
                    .isEqualTo(5);
            assertThat(registry.get("rivulet.gpu.staging.in.use").gauge().value()).isZero();
        } finally {
            tx.dispose();
            rx.dispose();
            Mono.when(tx.onClose(), rx.onClose()).block(TIMEOUT);
            pair.close();
            t.dispose();
            m.close();
        }
        assertThat(registry.find("rivulet.gpu.transfers").meters()).as("removed with the memory type").isEmpty();
    }

    private static double counter(SimpleMeterRegistry r, String name, String op, String outcome) {
        FunctionCounter c = r.get(name).tags("op", op, "path", "staged", "outcome", outcome).functionCounter();
        return c.count();
    }
}
