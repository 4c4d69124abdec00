package dev.rivulet.rio.windows.sys;

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
 * {@code SOCKADDR_IN} (16 bytes, {@code ws2def.h}): {@code ADDRESS_FAMILY} (USHORT, host order), port and
 * {@code IN_ADDR} in network byte order (declared big-endian in the layout), 8 zero bytes. Same shape as Linux's;
 * kept separate because the families around it ({@link WinsockConstants#AF_INET6} = 23) differ.
 */
public final class SockaddrIn {

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_SHORT.withName("sin_family"),
            JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN).withName("sin_port"),
            JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN).withName("sin_addr"),
            MemoryLayout.sequenceLayout(8, JAVA_BYTE).withName("sin_zero")
    ).withName("SOCKADDR_IN");

    private static final VarHandle FAMILY = LAYOUT.varHandle(groupElement("sin_family"));
    private static final VarHandle PORT = LAYOUT.varHandle(groupElement("sin_port"));
    private static final VarHandle ADDR = LAYOUT.varHandle(groupElement("sin_addr"));

    private SockaddrIn() {
    }

    public static void write(MemorySegment s, Inet4Address address, int port) {
        if (port < 0 || port > 0xFFFF) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        s.asSlice(0, LAYOUT.byteSize()).fill((byte) 0);
        FAMILY.set(s, 0L, (short) WinsockConstants.AF_INET);
        PORT.set(s, 0L, (short) port);
        byte[] a = address.getAddress();
        ADDR.set(s, 0L, (a[0] & 0xFF) << 24 | (a[1] & 0xFF) << 16 | (a[2] & 0xFF) << 8 | (a[3] & 0xFF));
    }

    public static int family(MemorySegment s) {
        return Short.toUnsignedInt((short) FAMILY.get(s, 0L));
    }

    public static int port(MemorySegment s) {
        return Short.toUnsignedInt((short) PORT.get(s, 0L));
    }

    public static Inet4Address address(MemorySegment s) {
        int a = (int) ADDR.get(s, 0L);
        try {
            return (Inet4Address) InetAddress.getByAddress(
                    new byte[] {(byte) (a >>> 24), (byte) (a >>> 16), (byte) (a >>> 8), (byte) a});
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
