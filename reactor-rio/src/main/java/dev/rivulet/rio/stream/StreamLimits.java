package dev.rivulet.rio.stream;

import dev.rivulet.core.Capabilities;
import dev.rivulet.core.error.HandshakeException;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;

/**
 * What one side of a stream connection accepts at most, exchanged in the handshake's parameters: the largest message
 * (also the largest put or get) and the largest coalesced frame. Both sides then use the smaller of the two values
 * for what they send and what they accept, so two sides configured differently still agree on every frame.
 *
 * <pre>
 * u16 wire version (1) | u32 maxMessageSize | u32 maxBatchBytes     (big-endian, as the handshake's own fields)
 * </pre>
 */
public record StreamLimits(int maxMessageSize, int maxBatchBytes) {

    /** The stream wire format these limits belong to; a peer naming another one is refused. */
    public static final int WIRE_VERSION = 1;
    private static final int BYTES = 2 + 4 + 4;

    public byte[] encode() {
        return ByteBuffer.allocate(BYTES).putShort((short) WIRE_VERSION).putInt(maxMessageSize).putInt(maxBatchBytes)
                .array();
    }

    /** The peer's limits from its handshake parameters; {@link HandshakeException} for anything malformed. */
    public static StreamLimits decode(byte[] params) {
        if (params == null || params.length != BYTES) {
            throw new HandshakeException("stream parameters of " + (params == null ? 0 : params.length)
                    + " bytes, expected " + BYTES + " (is the peer a Rivulet stream transport?)");
        }
        try {
            ByteBuffer b = ByteBuffer.wrap(params);
            int version = Short.toUnsignedInt(b.getShort());
            if (version != WIRE_VERSION) {
                throw new HandshakeException("peer speaks stream wire version " + version + ", this side "
                        + WIRE_VERSION);
            }
            int maxMessage = b.getInt();
            int maxBatch = b.getInt();
            if (maxMessage <= 0 || maxBatch <= 0) {
                throw new HandshakeException("peer announces limits " + maxMessage + " / " + maxBatch);
            }
            return new StreamLimits(maxMessage, maxBatch);
        } catch (BufferUnderflowException e) {
            throw new HandshakeException("truncated stream parameters");
        }
    }

    /** {@code caps} with message and RMA sizes no larger than this peer takes. */
    public Capabilities narrow(Capabilities caps) {
        long maxMessage = Math.min(caps.maxMessageSize(), maxMessageSize);
        long maxRma = Math.min(caps.maxRmaSize(), maxMessageSize);
        if (maxMessage == caps.maxMessageSize() && maxRma == caps.maxRmaSize()) {
            return caps;
        }
        return new Capabilities(caps.transport(), caps.operations(), maxMessage, caps.maxInlineSize(), caps.maxIov(),
                caps.ordering(), caps.sendQueueDepth(), caps.receiveQueueDepth(), caps.bandwidth(), caps.latency(),
                caps.sendCompletion(), caps.putCompletion(), caps.flushCompletion(), maxRma, caps.remoteAccessChecked(),
                caps.remoteKeyBits(),
                caps.grantScopeChecked(), caps.refusalClosesConnection());
    }
}
