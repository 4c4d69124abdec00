package dev.rivulet.core.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;

/**
 * {@code struct sockaddr_in} (16 bytes, Linux). The family is in host byte order; port and address are in
 * network byte order, which the layout states explicitly ({@code withOrder(BIG_ENDIAN)}) so the VarHandles swap
 * on little-endian CPUs and no caller has to remember {@code htons}.
 */
public final class SockaddrIn {

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_SHORT.withName("sin_family"),
            JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN).withName("sin_port"),
            JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN).withName("sin_addr"), // struct in_addr { s_addr }
            MemoryLayout.sequenceLayout(8, JAVA_BYTE).withName("sin_zero")
    ).withName("sockaddr_in");

    private static final VarHandle FAMILY = LAYOUT.varHandle(groupElement("sin_family"));
    private static final VarHandle PORT = LAYOUT.varHandle(groupElement("sin_port"));
    private static final VarHandle ADDR = LAYOUT.varHandle(groupElement("sin_addr"));

    private SockaddrIn() {
    }

    /** Fills {@code s} (at least 16 bytes) with {@code AF_INET}, {@code address} and {@code port}; zeroes the rest. */
    public static void write(MemorySegment s, Inet4Address address, int port) {
        s.asSlice(0, LAYOUT.byteSize()).fill((byte) 0);
        FAMILY.set(s, 0L, (short) LibcSockets.AF_INET);
        PORT.set(s, 0L, (short) checkPort(port));
        byte[] a = address.getAddress(); // network order: a[0] is the first octet
        ADDR.set(s, 0L, (a[0] & 0xFF) << 24 | (a[1] & 0xFF) << 16 | (a[2] & 0xFF) << 8 | (a[3] & 0xFF));
    }

    public static int family(MemorySegment s) {
        return Short.toUnsignedInt((short) FAMILY.get(s, 0L));
    }

    /** The port as a host number (0..65535). */
    public static int port(MemorySegment s) {
        return Short.toUnsignedInt((short) PORT.get(s, 0L));
    }

    public static Inet4Address address(MemorySegment s) {
        int a = (int) ADDR.get(s, 0L);
        byte[] bytes = {(byte) (a >>> 24), (byte) (a >>> 16), (byte) (a >>> 8), (byte) a};
        try {
            return (Inet4Address) InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // cannot happen for 4 bytes
        }
    }

    static int checkPort(int port) {
        if (port < 0 || port > 0xFFFF) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        return port;
    }
}
