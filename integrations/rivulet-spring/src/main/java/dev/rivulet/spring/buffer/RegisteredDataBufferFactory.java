package dev.rivulet.spring.buffer;

import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;

/**
 * A {@link DataBufferFactory} whose buffers are {@link MemoryDomain#allocate pooled buffers} of one memory domain:
 * whatever a Spring encoder writes lands in registered memory, and {@link RegisteredDataBuffer#toPayloadBuffer()}
 * hands it to a payload without copying.
 *
 * <p>{@link #wrap} keeps Spring's contract that wrapping uses no new memory: it returns a heap or NIO view from
 * {@link DefaultDataBufferFactory}, which a payload copies once into registered memory when it is sent.
 */
public final class RegisteredDataBufferFactory implements DataBufferFactory {

    /** What {@link #allocateBuffer()} asks for, as {@link DefaultDataBufferFactory} does. */
    public static final int DEFAULT_INITIAL_CAPACITY = 256;

    private final MemoryDomain domain;

    public RegisteredDataBufferFactory(MemoryDomain domain) {
        this.domain = Objects.requireNonNull(domain, "domain");
    }

    /** The domain this factory's buffers come from. */
    public MemoryDomain domain() {
        return domain;
    }

    @Override
    @Deprecated
    public RegisteredDataBuffer allocateBuffer() {
        return allocateBuffer(DEFAULT_INITIAL_CAPACITY);
    }

    @Override
    public RegisteredDataBuffer allocateBuffer(int initialCapacity) {
        if (initialCapacity < 0) {
            throw new IllegalArgumentException("negative capacity " + initialCapacity);
        }
        return new RegisteredDataBuffer(this, allocate(initialCapacity), initialCapacity);
    }

    /** A pooled buffer of at least {@code capacity} bytes, holding one reference. */
    Buffer allocate(int capacity) {
        return domain.allocate(capacity);
    }

    @Override
    public DataBuffer wrap(ByteBuffer byteBuffer) {
        return DefaultDataBufferFactory.sharedInstance.wrap(byteBuffer);
    }

    @Override
    public DataBuffer wrap(byte[] bytes) {
        return DefaultDataBufferFactory.sharedInstance.wrap(bytes);
    }

    /** One registered buffer with the readable bytes of all of {@code buffers}, which are released. */
    @Override
    public DataBuffer join(List<? extends DataBuffer> buffers) {
        if (buffers.size() == 1 && buffers.getFirst() instanceof RegisteredDataBuffer only) {
            return only;
        }
        int total = 0;
        for (DataBuffer b : buffers) {
            total = Math.addExact(total, b.readableByteCount());
        }
        RegisteredDataBuffer joined = allocateBuffer(total);
        try {
            joined.write(buffers.toArray(DataBuffer[]::new));
        } finally {
            buffers.forEach(DataBufferUtils::release);
        }
        return joined;
    }

    @Override
    public boolean isDirect() {
        return true;
    }

    @Override
    public String toString() {
        return "RegisteredDataBufferFactory[" + domain.name() + "]";
    }
}
