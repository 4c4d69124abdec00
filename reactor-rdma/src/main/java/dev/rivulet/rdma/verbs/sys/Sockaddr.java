package dev.rivulet.rdma.verbs.sys;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.ByteOrder;

/**
 * The socket addresses rdma_cm is addressed with ({@code rdma_bind_addr}, {@code rdma_resolve_addr}):
 * {@code struct sockaddr_in} and {@code struct sockaddr_in6} (netinet/in.h), port and address in network order.
 */
public final class Sockaddr {

    /** {@code struct sockaddr_in}; {@code sin_addr} is a {@code struct in_addr} of one {@code uint32_t}. */
    public static final StructLayout IN = MemoryLayout.structLayout(
            JAVA_SHORT.withName("sin_family"),
            JAVA_SHORT.withName("sin_port"),
            JAVA_INT.withName("sin_addr"),
            MemoryLayout.sequenceLayout(8, JAVA_BYTE).withName("sin_zero"))
            .withName("sockaddr_in");

    /** {@code struct sockaddr_in6}. */
    public static final StructLayout IN6 = MemoryLayout.structLayout(
            JAVA_SHORT.withName("sin6_family"),
            JAVA_SHORT.withName("sin6_port"),
            JAVA_INT.withName("sin6_flowinfo"),
            MemoryLayout.sequenceLayout(16, JAVA_BYTE).withName("sin6_addr"),
            JAVA_INT.withName("sin6_scope_id"))
            .withName("sockaddr_in6");

    private static final ValueLayout.OfShort NETWORK_SHORT = JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN);

    private static final long SIN_FAMILY = VerbsDispatch.offset(IN, "sin_family");
    private static final long SIN_PORT = VerbsDispatch.offset(IN, "sin_port");
    private static final long SIN_ADDR = VerbsDispatch.offset(IN, "sin_addr");
    private static final long SIN6_FAMILY = VerbsDispatch.offset(IN6, "sin6_family");
    private static final long SIN6_PORT = VerbsDispatch.offset(IN6, "sin6_port");
    private static final long SIN6_ADDR = VerbsDispatch.offset(IN6, "sin6_addr");
    private static final long SIN6_SCOPE_ID = VerbsDispatch.offset(IN6, "sin6_scope_id");

    private Sockaddr() {
    }

    /** {@code address:port} as a {@code sockaddr_in} or {@code sockaddr_in6} owned by {@code arena}. */
    public static MemorySegment of(Arena arena, InetAddress address, int port) {
        if (port < 0 || port > 0xFFFF) {
            throw new IllegalArgumentException("port " + port);
        }
        if (address instanceof Inet4Address v4) {
            MemorySegment s = arena.allocate(IN);
            s.set(JAVA_SHORT, SIN_FAMILY, (short) Posix.AF_INET);
            s.set(NETWORK_SHORT, SIN_PORT, (short) port);
            MemorySegment.copy(v4.getAddress(), 0, s, JAVA_BYTE, SIN_ADDR, 4);
            return s;
        }
        Inet6Address v6 = (Inet6Address) address;
        MemorySegment s = arena.allocate(IN6);
        s.set(JAVA_SHORT, SIN6_FAMILY, (short) Posix.AF_INET6);
        s.set(NETWORK_SHORT, SIN6_PORT, (short) port);
        MemorySegment.copy(v6.getAddress(), 0, s, JAVA_BYTE, SIN6_ADDR, 16);
        s.set(JAVA_INT, SIN6_SCOPE_ID, v6.getScopeId());
        return s;
    }
}
