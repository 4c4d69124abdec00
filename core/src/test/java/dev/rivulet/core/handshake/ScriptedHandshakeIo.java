package dev.rivulet.core.handshake;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A handshake channel whose peer is a fixed byte string (the fuzzer's): reads past its end see end of stream. */
final class ScriptedHandshakeIo implements HandshakeIo {

    private final byte[] peer;
    private int read;
    private final ByteArrayOutputStream written = new ByteArrayOutputStream();

    ScriptedHandshakeIo(byte[] peer) {
        this.peer = peer;
    }

    @Override
    public void write(byte[] bytes) {
        written.writeBytes(bytes);
    }

    @Override
    public void readFully(byte[] into, int off, int len) throws EOFException {
        if (len > peer.length - read) {
            read = peer.length;
            throw new EOFException();
        }
        System.arraycopy(peer, read, into, off, len);
        read += len;
    }

    /** The frame types this side wrote, checking that every frame it wrote is well formed. */
    List<Integer> writtenTypes() {
        byte[] out = written.toByteArray();
        List<Integer> types = new ArrayList<>();
        int pos = 0;
        while (pos < out.length) {
            assertThat(out.length - pos).as("a whole header").isGreaterThanOrEqualTo(HandshakeMessages.HEADER);
            byte[] header = {out[pos], out[pos + 1], out[pos + 2]};
            int len = HandshakeMessages.bodyLength(header);
            assertThat(out.length - pos - HandshakeMessages.HEADER).as("a whole body").isGreaterThanOrEqualTo(len);
            byte[] body = java.util.Arrays.copyOfRange(out, pos + HandshakeMessages.HEADER,
                    pos + HandshakeMessages.HEADER + len);
            int type = header[0] & 0xFF;
            switch (type) {
                case HandshakeMessages.CLIENT_HELLO -> HandshakeMessages.parseClientHello(body);
                case HandshakeMessages.SERVER_HELLO -> HandshakeMessages.parseServerHello(body);
                case HandshakeMessages.CLIENT_PROOF, HandshakeMessages.SERVER_PROOF -> HandshakeMessages.parseProof(body);
                case HandshakeMessages.REFUSE -> HandshakeMessages.parseRefuse(body);
                default -> { }
            }
            types.add(type);
            pos += HandshakeMessages.HEADER + len;
        }
        return types;
    }
}
