package dev.rivulet.samples.pingpong;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;

/**
 * An endpoint's name as {@code fi_getname} returns it, with the {@code fi_info.addr_format} that says how to read it
 * ({@code FI_SOCKADDR_IN} for tcp over IPv4: a {@code struct sockaddr_in}). Peers exchange these on the control
 * channel and insert each other's into their address vectors.
 */
record FabricName(byte[] bytes, int addrFormat) {

    private static final int FI_SOCKADDR_IN = 2;

    /** {@code 192.0.2.2:42383} for an IPv4 socket address, else the format and the bytes in hex. */
    @Override
    public String toString() {
        if (addrFormat == FI_SOCKADDR_IN && bytes.length >= 8) {
            int port = ByteBuffer.wrap(bytes, 2, 2).order(ByteOrder.BIG_ENDIAN).getShort() & 0xFFFF;
            return (bytes[4] & 0xFF) + "." + (bytes[5] & 0xFF) + "." + (bytes[6] & 0xFF) + "." + (bytes[7] & 0xFF)
                    + ":" + port;
        }
        return "format " + addrFormat + ": " + HexFormat.ofDelimiter(" ").formatHex(bytes);
    }
}
