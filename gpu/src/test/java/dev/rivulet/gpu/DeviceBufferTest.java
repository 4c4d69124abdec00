package dev.rivulet.gpu;

import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.gpu.host.HostMemoryStandIn;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DeviceBufferTest {

    @Test
    void slicesStayInsideTheirBuffer() {
        try (HostMemoryStandIn m = HostMemoryStandIn.create()) {
            DeviceBuffer b = m.allocate(1000);
            DeviceSlice s = b.slice(100, 800);
            assertThat(s.address()).isEqualTo(b.address() + 100);
            assertThat(s.slice(700, 100).offset()).isEqualTo(800);
            assertThatThrownBy(() -> b.slice(900, 101)).isInstanceOf(InvalidRequestException.class);
            assertThatThrownBy(() -> s.slice(1, 800)).isInstanceOf(InvalidRequestException.class);
            assertThatThrownBy(() -> b.slice(-1, 1)).isInstanceOf(InvalidRequestException.class);
        }
    }

    @Test
    void closingWhilePinnedFreesAfterTheLastPinAndDependentsFirst() {
        try (HostMemoryStandIn m = HostMemoryStandIn.create()) {
            DeviceBuffer b = m.allocate(4096);
            Sinks.Empty<Void> dependentGone = Sinks.empty();
            AtomicBoolean dependentClosed = new AtomicBoolean();
            b.beforeFree(() -> {
                dependentClosed.set(true);
                return dependentGone.asMono();
            });
            assertThat(b.tryPin()).isTrue();

            b.close();

            assertThat(b.isOpen()).isFalse();
            assertThat(b.tryPin()).as("no new transfer on a closing buffer").isFalse();
            assertThat(m.stats().buffers()).isEqualTo(1);
            b.unpin();
            assertThat(dependentClosed).isTrue();
            assertThat(m.stats().buffers()).as("freed only once its dependent let go").isEqualTo(1);
            dependentGone.tryEmitEmpty();
            b.onFree().block(Duration.ofSeconds(10));
            assertThat(m.stats().buffers()).isZero();
            assertThat(m.metrics().allocatedBytes()).isZero();
        }
    }

    @Test
    void closingTheMemoryTypeFreesItsBuffers() {
        HostMemoryStandIn m = HostMemoryStandIn.create();
        DeviceBuffer a = m.allocate(100);
        DeviceBuffer b = m.allocate(200);
        m.close();
        Mono.when(a.onFree(), b.onFree()).block(Duration.ofSeconds(10));
        assertThat(m.stats().allocatedBytes()).isZero();
        assertThatThrownBy(() -> m.allocate(1)).isInstanceOf(dev.rivulet.core.error.ResourceClosedException.class);
    }
}
