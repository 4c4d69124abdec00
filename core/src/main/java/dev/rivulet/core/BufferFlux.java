package dev.rivulet.core;

import dev.rivulet.core.memory.Buffer;
import org.reactivestreams.Publisher;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxOperator;

import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/**
 * Received messages, as {@link Endpoint#receive()} emits them: each {@link Buffer} is <em>lent</em> for the duration
 * of {@code onNext} and released by Rivulet when {@code onNext} returns, as Reactor Netty does with its
 * {@code ByteBuf}s. Whatever ordinary operators do with a lent buffer (filter it out, drop it after {@code take},
 * time out, cancel, fail) it goes back to its pool. A lent buffer is a view onto the memory the message arrived in,
 * usable only on the thread that called {@code onNext} and only until it returns: kept past that without
 * {@code retain()}, every access fails with {@link dev.rivulet.core.error.InvalidMemoryException} (see
 * {@link Buffer}).
 *
 * <p>To keep a buffer past {@code onNext} (behind {@code publishOn}, in a window, a list, an asynchronous
 * {@code flatMap}, or to send it on) take a reference first with {@link #retain()} (this copies a message that
 * shares its memory with others; the receive path copies nothing otherwise): the buffers it emits are the
 * subscriber's to release, and operators that queue them should be followed by
 * {@code doOnDiscard(Buffer.class, Buffer::release)} so that a cancelled queue gives them back. For plain values,
 * {@link #asByteArray()} and {@link #asString()} copy the bytes out and need no release at all.
 */
public final class BufferFlux extends FluxOperator<Buffer, Buffer> {

    private BufferFlux(Flux<? extends Buffer> source) {
        super(source);
    }

    /**
     * Wraps a publisher whose buffers are released by their source when {@code onNext} returns (what transports
     * return from {@code receive()}); not for publishers of buffers the subscriber owns.
     */
    public static BufferFlux lent(Publisher<Buffer> source) {
        return new BufferFlux(Flux.from(source));
    }

    @Override
    public void subscribe(CoreSubscriber<? super Buffer> actual) {
        source.subscribe(actual);
    }

    /**
     * Each buffer with a reference of the subscriber's own: it outlives {@code onNext}, and the subscriber releases
     * it. The echo idiom is {@code endpoint.send(endpoint.receive().retain())}: the send takes the reference.
     */
    public Flux<Buffer> retain() {
        return source.map(Buffer::retain);
    }

    /** Each message's bytes copied into a new array; nothing to release. */
    public Flux<byte[]> asByteArray() {
        return source.map(Buffer::toArray);
    }

    /** Each message decoded as UTF-8; nothing to release. */
    public Flux<String> asString() {
        return asString(StandardCharsets.UTF_8);
    }

    /** Each message decoded with {@code charset}; nothing to release. */
    public Flux<String> asString(Charset charset) {
        return source.map(b -> b.toString(charset));
    }

    /** Each message's bytes copied into a new heap {@link ByteBuffer}; nothing to release. */
    public Flux<ByteBuffer> asByteBuffer() {
        return source.map(b -> ByteBuffer.wrap(b.toArray()));
    }
}
