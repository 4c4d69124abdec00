package dev.rivulet.rio.uring.sys;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rivulet.core.sys.LibcSockets;
import dev.rivulet.core.sys.SockaddrIn6;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** Socket address encoding: network byte order where C wants it, host order elsewhere. */
class SockaddrTest {

    @Test
    void ipv4PortAndAddressAreStoredInNetworkByteOrder() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = LibcSockets.sockaddr(arena,
                    new InetSocketAddress(InetAddress.getByName("10.1.2.3"), 0x1234));

            assertThat(s.byteSize()).isEqualTo(16);
            assertThat(s.toArray(ValueLayout.JAVA_BYTE)).startsWith(
                    (byte) LibcSockets.AF_INET, (byte) 0, (byte) 0x12, (byte) 0x34, (byte) 10, (byte) 1, (byte) 2,
                    (byte) 3, (byte) 0, (byte) 0);
        }
    }

    @Test
    void ipv6AddressRoundTripsWithPortAndScope() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            Inet6Address addr = Inet6Address.getByAddress(null, InetAddress.getByName("fe80::1").getAddress(), 3);
            MemorySegment s = LibcSockets.sockaddr(arena, new InetSocketAddress(addr, 40000));

            assertThat(s.byteSize()).isEqualTo(28);
            assertThat(s.get(ValueLayout.JAVA_BYTE, 2)).isEqualTo((byte) (40000 >> 8));
            assertThat(LibcSockets.decode(s)).isEqualTo(new InetSocketAddress(addr, 40000));
            assertThat(SockaddrIn6.scopeId(s)).isEqualTo(3);
        }
    }

    @Test
    void ipv4AddressRoundTrips() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            InetSocketAddress a = new InetSocketAddress(InetAddress.getByName("192.168.200.1"), 65535);
            assertThat(LibcSockets.decode(LibcSockets.sockaddr(arena, a))).isEqualTo(a);
        }
    }
}
