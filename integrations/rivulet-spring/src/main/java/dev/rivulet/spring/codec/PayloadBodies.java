package dev.rivulet.spring.codec;

import dev.rivulet.core.interaction.Metadata;
import dev.rivulet.core.interaction.Payload;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.spring.buffer.RegisteredDataBuffer;
import dev.rivulet.spring.buffer.RegisteredDataBufferFactory;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;

import java.lang.foreign.MemorySegment;

/** Payload data seen as a Spring {@link DataBuffer}, and an encoded {@link DataBuffer} sent as a payload. */
public final class PayloadBodies {

    private PayloadBodies() {
    }

    /**
     * A data buffer over {@code payload}'s data, not a copy: valid exactly as long as the payload is (a received
     * payload: for the call it was handed to, see {@link Payload}), so decode it there. Releasing it does nothing.
     */
    public static DataBuffer view(Payload payload) {
        return DefaultDataBufferFactory.sharedInstance.wrap(payload.data().asByteBuffer());
    }

    /**
     * A payload of {@code body}'s readable bytes with {@code metadata}, taking {@code body}'s reference: a registered
     * data buffer becomes the payload's buffer without a copy (see {@link RegisteredDataBuffer#toPayloadBuffer()}),
     * any other is copied once into a pooled buffer of {@code factory}'s domain and released.
     */
    public static Payload toPayload(DataBuffer body, Metadata metadata, RegisteredDataBufferFactory factory) {
        Buffer buffer;
        if (body instanceof RegisteredDataBuffer registered) {
            buffer = registered.toPayloadBuffer();
        } else {
            buffer = copy(body, factory);
        }
        return Payload.of(buffer).metadata(metadata);
    }

    private static Buffer copy(DataBuffer body, RegisteredDataBufferFactory factory) {
        try {
            Buffer buffer = factory.domain().allocate(body.readableByteCount());
            MemorySegment to = buffer.segment();
            long at = 0;
            try (DataBuffer.ByteBufferIterator readable = body.readableByteBuffers()) {
                while (readable.hasNext()) {
                    MemorySegment from = MemorySegment.ofBuffer(readable.next());
                    MemorySegment.copy(from, 0, to, at, from.byteSize());
                    at += from.byteSize();
                }
            }
            return buffer;
        } finally {
            DataBufferUtils.release(body);
        }
    }
}
