package dev.rivulet.samples.webflux.buffers;

import dev.rivulet.core.memory.Buffer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.NettyDataBufferFactory;

/**
 * Rivulet {@link Buffer}s as Spring {@link DataBuffer}s, without a copy: the buffer's registered memory becomes a
 * Netty {@link ByteBuf} whose last release gives the Rivulet buffer back to its pool. Reference counting stays honest
 * on both sides: the wrapper holds the Rivulet buffer's one reference, Spring and Reactor Netty release the
 * {@code DataBuffer} when the bytes are written (or the response is cancelled), and that release, whoever makes it,
 * is the one that returns the memory.
 *
 * <p>Why not the Spring library's {@code RegisteredDataBuffer}: that one is made for Rivulet's codecs, which hand its
 * pooled buffer to a payload. An HTTP response on Reactor Netty takes only Netty's own data buffers as they are; any
 * other it copies into a new heap buffer and never releases, so registered memory would go out with every response
 * and never come back.
 */
public final class RivuletDataBuffers {

    private static final NettyDataBufferFactory FACTORY = new NettyDataBufferFactory(UnpooledByteBufAllocator.DEFAULT);

    private RivuletDataBuffers() {
    }

    /** {@code buffer}'s message bytes as a read-only-sized {@code DataBuffer}; takes over its reference. */
    public static DataBuffer wrap(Buffer buffer) {
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
