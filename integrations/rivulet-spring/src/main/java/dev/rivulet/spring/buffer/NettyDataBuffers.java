package dev.rivulet.spring.buffer;

import dev.rivulet.core.memory.Buffer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import org.springframework.core.io.buffer.NettyDataBuffer;
import org.springframework.core.io.buffer.NettyDataBufferFactory;

/**
 * Received Rivulet {@link Buffer}s as the body of an HTTP response served by Reactor Netty (WebFlux's default
 * server), without a copy: the buffer's registered memory becomes a Netty {@link ByteBuf} whose last release gives
 * the Rivulet buffer back to its pool.
 *
 * <p>Why not {@link RegisteredDataBuffer}: Reactor Netty writes its own data buffers as they are, but copies any other
 * {@code DataBuffer} into a new heap buffer and never releases the original, so a registered buffer given to an HTTP
 * response in any other form never returns to its pool. A {@link NettyDataBuffer} is written as it is and released by
 * Reactor Netty once its bytes are on the socket, or when the response is cancelled (a client that goes away).
 *
 * <p>Reference counts stay honest on both sides: the wrapper holds the Rivulet buffer's one reference; Spring and
 * Reactor Netty count their own retains and releases on the {@code DataBuffer}, and the last of them, whoever makes
 * it, is the one that returns the memory. Needs {@code io.netty:netty-buffer} on the class path (WebFlux on Reactor
 * Netty brings it).
 */
public final class NettyDataBuffers {

    private static final NettyDataBufferFactory FACTORY = new NettyDataBufferFactory(UnpooledByteBufAllocator.DEFAULT);

    private NettyDataBuffers() {
    }

    /**
     * {@code buffer}'s message bytes (its length, not its capacity) as a {@code DataBuffer}; takes over the caller's
     * reference, so the caller releases nothing more.
     */
    public static NettyDataBuffer wrap(Buffer buffer) {
        return FACTORY.wrap(new Lent(buffer));
    }

    /** A Netty view of a Rivulet buffer that releases it, once, when Netty's reference count reaches zero. */
    private static final class Lent extends UnpooledDirectByteBuf {
        private final Buffer buffer;

        Lent(Buffer buffer) {
            // The view's capacity is the message length: nothing can be written past what was received.
            super(UnpooledByteBufAllocator.DEFAULT, buffer.segment().asByteBuffer(), buffer.length());
            this.buffer = buffer;
            writerIndex(buffer.length());
        }

        @Override
        protected void deallocate() {
            super.deallocate(); // drops the view; the memory is Rivulet's, not Netty's to free
            buffer.release();
        }
    }
}
