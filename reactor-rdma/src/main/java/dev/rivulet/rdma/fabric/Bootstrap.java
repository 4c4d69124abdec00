package dev.rivulet.rdma.fabric;

import dev.rivulet.core.error.ConnectionRefusedException;
import dev.rivulet.core.error.CreditProtocolException;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * The out-of-band exchange that connects two libfabric endpoints: a plain TCP connection on which each side sends
 * its endpoint name once, kept open afterwards as a liveness channel. Wire format (big-endian), see
 * {@code docs/fabric-bootstrap.md}:
 *
 * <pre>
 * hello (client → server): u32 magic 'RVFB' | u16 version | u16 len + provider (UTF-8) | u16 len + endpoint name
 *                          | u32 eager size
 * reply (server → client): u32 magic | u16 version | u8 status (0 ok, 1 refused) | u16 len + endpoint name (ok)
 *                          or UTF-8 reason (refused) | u32 eager size
 * afterwards:              one byte 0x01 (goodbye) before a graceful close; EOF without it means the peer is gone
 * </pre>
 */
final class Bootstrap {

    static final int MAGIC = 0x52564642; // "RVFB"
    static final int VERSION = 1;
    static final int GOODBYE = 0x01;

    private Bootstrap() {
    }

    record Hello(String provider, byte[] name, int eagerSize) {
    }

    static void writeHello(Socket s, String provider, byte[] name, int eagerSize) throws IOException {
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        out.writeInt(MAGIC);
        out.writeShort(VERSION);
        writeBytes(out, provider.getBytes(StandardCharsets.UTF_8));
        writeBytes(out, name);
        out.writeInt(eagerSize);
        out.flush();
    }

    static Hello readHello(Socket s) throws IOException {
        DataInputStream in = new DataInputStream(s.getInputStream());
        checkHeader(in);
        String provider = new String(readBytes(in), StandardCharsets.UTF_8);
        byte[] name = readBytes(in);
        return new Hello(provider, name, in.readInt());
    }

    static void writeReply(Socket s, byte[] nameOrNull, String refusal, int eagerSize) throws IOException {
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        out.writeInt(MAGIC);
        out.writeShort(VERSION);
        out.writeByte(nameOrNull != null ? 0 : 1);
        writeBytes(out, nameOrNull != null ? nameOrNull : refusal.getBytes(StandardCharsets.UTF_8));
        out.writeInt(eagerSize);
        out.flush();
    }

    /** Reads the server's reply; returns its endpoint name or throws the refusal. */
    static byte[] readReply(Socket s, int eagerSize) throws IOException {
        DataInputStream in = new DataInputStream(s.getInputStream());
        checkHeader(in);
        int status = in.readUnsignedByte();
        byte[] body = readBytes(in);
        int theirEager = in.readInt();
        if (status != 0) {
            throw new ConnectionRefusedException("peer refused: " + new String(body, StandardCharsets.UTF_8));
        }
        if (theirEager != eagerSize) {
            throw new CreditProtocolException("eager sizes differ: ours " + eagerSize + ", peer's " + theirEager);
        }
        return body;
    }

    private static void checkHeader(DataInputStream in) throws IOException {
        int magic = in.readInt();
        int version = in.readUnsignedShort();
        if (magic != MAGIC || version != VERSION) {
            throw new CreditProtocolException("not a Rivulet fabric bootstrap peer (magic 0x" + Integer.toHexString(
                    magic) + ", version " + version + ")");
        }
    }

    private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
        out.writeShort(b.length);
        out.write(b);
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        int n = in.readUnsignedShort();
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }

    /**
     * Watches the bootstrap connection after setup, on a virtual thread: a goodbye byte means a graceful close, EOF
     * or an error without it means the peer vanished.
     */
    static void watch(Socket s, FabricWire wire) {
        Thread.ofVirtual().name("rivulet-fabric-watch").start(() -> {
            boolean graceful = false;
            try {
                graceful = s.getInputStream().read() == GOODBYE;
            } catch (IOException e) {
                // reset or closed locally: decided below
            }
            if (!s.isClosed()) {
                wire.peerClosed(graceful);
            }
            closeQuietly(s);
        });
    }

    /** Says goodbye and closes. */
    static void goodbye(Socket s) {
        try {
            s.getOutputStream().write(GOODBYE);
            s.getOutputStream().flush();
        } catch (IOException e) {
            // the peer is gone already
        }
        closeQuietly(s);
    }

    static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // nothing left to do
        }
    }
}
