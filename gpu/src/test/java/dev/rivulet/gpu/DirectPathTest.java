package dev.rivulet.gpu;

import dev.rivulet.conformance.Pair;
import dev.rivulet.core.Transport;
import dev.rivulet.core.loop.ProgressEngine;
import dev.rivulet.core.error.ProviderException;
import dev.rivulet.core.error.TransportUnavailableException;
import dev.rivulet.core.spi.Availability;
import dev.rivulet.core.spi.DeviceMemoryRegistrar;
import dev.rivulet.gpu.direct.DirectPath;
import dev.rivulet.gpu.host.HostMemoryStandIn;
import dev.rivulet.rdma.FabricDeviceMemory;
import dev.rivulet.rdma.fabric.sys.Libfabric;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Where the direct path cannot be used, it says why, and transfers are staged. What runs here is the detection and
 * libfabric's answer to a CUDA registration; the direct transfers themselves need a CUDA-enabled libfabric.
 */
class DirectPathTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @Test
    void standInMemoryIsNeverDirect() {
        Transport t = TestTransport.LOCAL.open();
        try (HostMemoryStandIn m = HostMemoryStandIn.create()) {
            Availability a = DirectPath.probe(t, m);
            assertThat(a.available()).isFalse();
            assertThat(a.reason()).contains("host-stand-in memory cannot be registered");
        } finally {
            t.dispose();
        }
    }

    @Test
    void askingForTheDirectPathWhereThereIsNoneFailsTheOpenWithTheReason() {
        Transport t = TestTransport.LOCAL.open();
        Pair pair = Pair.connect(t, t, "local://gpu-direct-refused");
        try (HostMemoryStandIn m = HostMemoryStandIn.create()) {
            assertThatThrownBy(() -> DeviceTransfers.open(t, pair.client(), m,
                    DeviceTransferConfig.defaults().paths(PathSelection.DIRECT)).block(TIMEOUT))
                    .isInstanceOf(TransportUnavailableException.class)
                    .hasMessageContaining("cannot be registered with a network provider");
            DeviceTransfers auto = DeviceTransfers.open(t, pair.client(), m, DeviceTransferConfig.defaults())
                    .block(TIMEOUT);
            assertThat(auto.capabilities().rmaPath()).isEqualTo(TransferPath.STAGED);
            assertThat(auto.capabilities().directReason()).contains("cannot be registered");
            auto.dispose();
            auto.onClose().block(TIMEOUT);
        } finally {
            pair.close();
            t.dispose();
        }
    }

    @Test
    void libfabricWithoutDeviceSupportSaysSoAndRefusesCudaRegistration() {
        Transport tcp = TestTransport.LIBFABRIC_TCP.open();
        try (Arena arena = Arena.ofConfined()) {
            int regions = tcp.memory().regionCount();
            Availability support = FabricDeviceMemory.support(tcp);
            assertThat(support.available()).isFalse();
            assertThat(support.reason()).contains("did not report FI_HMEM");

            // What libfabric answers for a CUDA registration (host memory stands in for the device pointer: a
            // libfabric without CUDA refuses before it looks at the memory).
            MemorySegment memory = arena.allocate(64 << 10, 4096);
            ProviderException refused = FabricDeviceMemory.probeCudaRegistration(tcp, memory.address(),
                    memory.byteSize(), 0);
            if (Libfabric.runtimeVersion() == 0x10011) { // 1.17, Debian 12's build, without CUDA
                assertThat(refused).isNotNull();
                assertThat(refused.nativeCode()).as("FI_ENOSYS").isEqualTo(38);
            }
            assertThatThrownBy(() -> FabricDeviceMemory.registerCuda(tcp, memory.address(), memory.byteSize(), 0))
                    .isInstanceOf(TransportUnavailableException.class);
            assertThat(tcp.memory().regionCount()).as("nothing stayed registered").isEqualTo(regions);
        } finally {
            tcp.dispose();
        }
    }

    @Test
    void theDirectPathIsFoundThroughTheTransportsExtensionsWhereOneOffersIt() {
        Transport local = TestTransport.LOCAL.open();
        Transport tcp = TestTransport.LIBFABRIC_TCP.open();
        try {
            assertThat(local.extension(DeviceMemoryRegistrar.class)).as("local moves host memory only").isEmpty();
            DeviceMemoryRegistrar registrar = tcp.extension(DeviceMemoryRegistrar.class).orElseThrow();
            assertThat(registrar.support()).isEqualTo(FabricDeviceMemory.support(tcp));
            assertThat(tcp.extension(ProgressEngine.class)).as("the polling threads staging runs on").isPresent();
        } finally {
            tcp.dispose();
            local.dispose();
        }
    }
}
