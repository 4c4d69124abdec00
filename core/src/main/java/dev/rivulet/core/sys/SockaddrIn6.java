package dev.rivulet.core.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;
import java.net.Inet6Address;
import java.net.UnknownHostException;
import java.nio.ByteOrder;

/**
 * {@code struct sockaddr_in6} (28 bytes, Linux). Port and flow info are in network byte order (declared so in the
 * layout); the 16 address bytes are stored as given (already network order); the scope id is host order.
 */
public final class SockaddrIn6 {

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_SHORT.withName("sin6_family"),
            JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN).withName("sin6_port"),
            JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN).withName("sin6_flowinfo"),
            MemoryLayout.sequenceLayout(16, JAVA_BYTE).withName("sin6_addr"),
            JAVA_INT.withName("sin6_scope_id")
    ).withName("sockaddr_in6");

    private static final long ADDR_OFFSET = LAYOUT.byteOffset(groupElement("sin6_addr"));
    private static final VarHandle FAMILY = LAYOUT.varHandle(groupElement("sin6_family"));
    private static final VarHandle PORT = LAYOUT.varHandle(groupElement("sin6_port"));
    private static final VarHandle FLOWINFO = LAYOUT.varHandle(groupElement("sin6_flowinfo"));
    private static final VarHandle SCOPE_ID = LAYOUT.varHandle(groupElement("sin6_scope_id"));

    private SockaddrIn6() {
    }

    /** Fills {@code s} (at least 28 bytes) with {@code AF_INET6}, {@code address} (and its scope id), {@code port}. */
    public static void write(MemorySegment s, Inet6Address address, int port) {
        s.asSlice(0, LAYOUT.byteSize()).fill((byte) 0);
        FAMILY.set(s, 0L, (short) LibcSockets.AF_INET6);
        PORT.set(s, 0L, (short) SockaddrIn.checkPort(port));
        FLOWINFO.set(s, 0L, 0);
        MemorySegment.copy(address.getAddress(), 0, s, JAVA_BYTE, ADDR_OFFSET, 16);
        SCOPE_ID.set(s, 0L, address.getScopeId());
    }

    public static int family(MemorySegment s) {
        return Short.toUnsignedInt((short) FAMILY.get(s, 0L));
    }

    public static int port(MemorySegment s) {
        return Short.toUnsignedInt((short) PORT.get(s, 0L));
    }

    public static int scopeId(MemorySegment s) {
        return (int) SCOPE_ID.get(s, 0L);
    }

    public static Inet6Address address(MemorySegment s) {
        byte[] bytes = new byte[16];
        MemorySegment.copy(s, JAVA_BYTE, ADDR_OFFSET, bytes, 0, 16);
        try {
            return Inet6Address.getByAddress(null, bytes, scopeId(s));
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // cannot happen for 16 bytes
        }
    }
}
