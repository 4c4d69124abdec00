package dev.rivulet.gpu;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.gpu.bench.GpuStagingBench;
import dev.rivulet.gpu.host.HostMemoryStandIn;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The stand-in behaves as an asynchronous copy engine: queued copies, queried events, pinned host memory only. */
class HostMemoryStandInTest {

    private Transport transport;
    private Arena arena;
    private MemoryRegion host;

    @BeforeEach
    void setUp() {
        transport = Transports.open("local", TransportConfig.defaults());
        arena = Arena.ofShared();
        host = transport.memory().register(arena.allocate(1 << 20, 4096));
    }

    @AfterEach
    void tearDown() {
        host.close();
        host.onClose().block();
        transport.dispose();
        arena.close();
    }

    @Test
    void copiesRunOnTheStreamsThreadAndEndsAreSeenByQuerying() {
        ScriptedHook hook = new ScriptedHook();
        try (HostMemoryStandIn m = HostMemoryStandIn.create(hook)) {
            m.pinRegion(host);
            CopyStream s = m.openStream();
            CopyEvent e = s.newEvent();
            DeviceBuffer d = m.allocate(1 << 20);
            GpuStagingBench.fill(host.segment(), 3);
            CountDownLatch gate = hook.hold(CopyDirection.TO_DEVICE);

            s.copyToDevice(host.segment(), 1 << 20, d, 0, e); // returns at once: the copy waits at the gate

            assertThat(e.isComplete()).isFalse();
            gate.countDown();
            while (!e.isComplete()) {
                Thread.onSpinWait();
            }
            MemorySegment back = arena.allocate(1 << 20, 4096);
            MemoryRegion backRegion = transport.memory().register(back);
            m.pinRegion(backRegion);
            s.copyToHost(d, 0, back, 1 << 20, e);
            while (!e.isComplete()) {
                Thread.onSpinWait();
            }
            assertThat(back.mismatch(host.segment())).isEqualTo(-1L);
            assertThat(m.stats().pinnedRegions()).isEqualTo(2);
            backRegion.close();
            backRegion.onClose().block();
            assertThat(m.stats().pinnedRegions()).as("unpinned when its region closed").isEqualTo(1);
            e.close();
            s.close();
            d.close();
            assertThat(m.stats()).isEqualTo(new DeviceMemoryStats(0, 0, 0, 0, 1));
        }
    }

    @Test
    void unpinnedHostMemoryIsRefused() {
        try (HostMemoryStandIn m = HostMemoryStandIn.create()) {
            CopyStream s = m.openStream();
            CopyEvent e = s.newEvent();
            DeviceBuffer d = m.allocate(4096);
            assertThatThrownBy(() -> s.copyToHost(d, 0, host.segment(), 4096, e))
                    .isInstanceOf(DeviceMemoryException.class)
                    .satisfies(x -> assertThat(((DeviceMemoryException) x).errorName())
                            .isEqualTo("standInErrorHostMemoryNotPinned"));
            assertThat(e.isComplete()).as("nothing was queued").isTrue();
        }
    }

    @Test
    void aFailedCopyIsReportedOnceByItsEvent() {
        ScriptedHook hook = new ScriptedHook();
        hook.failNth(CopyDirection.TO_HOST, 2);
        try (HostMemoryStandIn m = HostMemoryStandIn.create(hook)) {
            m.pinRegion(host);
            CopyStream s = m.openStream();
            CopyEvent first = s.newEvent();
            CopyEvent second = s.newEvent();
            DeviceBuffer d = m.allocate(8192);
            s.copyToHost(d, 0, host.segment(), 4096, first);
            s.copyToHost(d, 4096, host.segment().asSlice(4096), 4096, second);
            while (!first.isComplete()) {
                Thread.onSpinWait();
            }
            DeviceMemoryException failure = null;
            while (failure == null) {
                try {
                    if (second.isComplete()) {
                        break;
                    }
                } catch (DeviceMemoryException x) {
                    failure = x;
                }
            }
            assertThat(failure).isNotNull();
            assertThat(failure.nativeCode()).isEqualTo(77);
            assertThat(second.isComplete()).as("free for the next copy").isTrue();
        }
    }

    @Test
    void copiesAreBoundsChecked() {
        try (HostMemoryStandIn m = HostMemoryStandIn.create(); HostMemoryStandIn other = HostMemoryStandIn.create()) {
            m.pinRegion(host);
            CopyStream s = m.openStream();
            CopyEvent e = s.newEvent();
            DeviceBuffer d = m.allocate(4096);
            assertThatThrownBy(() -> s.copyToHost(d, 1, host.segment(), 4096, e))
                    .isInstanceOf(InvalidRequestException.class);
            assertThatThrownBy(() -> s.copyToHost(other.allocate(16), 0, host.segment(), 16, e))
                    .isInstanceOf(InvalidRequestException.class);
            assertThatThrownBy(() -> s.copyToHost(d, 0, host.segment(), 16, other.openStream().newEvent()))
                    .isInstanceOf(InvalidRequestException.class);
        }
    }
}
