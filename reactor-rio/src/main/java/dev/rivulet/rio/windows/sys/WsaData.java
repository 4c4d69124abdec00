package dev.rivulet.rio.windows.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/**
 * {@code WSADATA} as laid out on 64-bit Windows (408 bytes, {@code WinSock2.h}). The {@code _WIN64} branch of the
 * header moves {@code iMaxSockets}, {@code iMaxUdpDg} and {@code lpVendorInfo} <em>before</em> the two strings,
 * unlike the 32-bit order most samples show; 402 bytes of members plus 6 bytes of tail padding.
 */
public final class WsaData {

    private static final int WSADESCRIPTION_LEN = 256;
    private static final int WSASYS_STATUS_LEN = 128;

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_SHORT.withName("wVersion"),
            JAVA_SHORT.withName("wHighVersion"),
            JAVA_SHORT.withName("iMaxSockets"),
            JAVA_SHORT.withName("iMaxUdpDg"),
            ADDRESS.withName("lpVendorInfo"),
            MemoryLayout.sequenceLayout(WSADESCRIPTION_LEN + 1, JAVA_BYTE).withName("szDescription"),
            MemoryLayout.sequenceLayout(WSASYS_STATUS_LEN + 1, JAVA_BYTE).withName("szSystemStatus"),
            MemoryLayout.paddingLayout(6)
    ).withName("WSADATA");

    private static final long DESCRIPTION_OFFSET = LAYOUT.byteOffset(groupElement("szDescription"));
    private static final VarHandle VERSION = LAYOUT.varHandle(groupElement("wVersion"));
    private static final VarHandle HIGH_VERSION = LAYOUT.varHandle(groupElement("wHighVersion"));

    private WsaData() {
    }

    /** The version WSAStartup negotiated ({@code 0x0202} for 2.2: low byte major). */
    public static short version(MemorySegment s) {
        return (short) VERSION.get(s, 0L);
    }

    public static short highVersion(MemorySegment s) {
        return (short) HIGH_VERSION.get(s, 0L);
    }

    public static String description(MemorySegment s) {
        return s.getString(DESCRIPTION_OFFSET);
    }
}
