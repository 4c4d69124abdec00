package dev.rivulet.spring.messaging;

import org.springframework.core.MethodParameter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.codec.Encoder;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.invocation.reactive.AbstractEncoderMethodReturnValueHandler;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Hands a method's encoded answers back to the {@link MessageMappingResponder} that made the request's message,
 * through the holder it put in the message's {@link #ANSWER_HEADER} (one encoded data buffer per value returned).
 */
final class AnswerReturnValueHandler extends AbstractEncoderMethodReturnValueHandler {

    /** The header holding an {@code AtomicReference<Flux<DataBuffer>>} for the answers. */
    static final String ANSWER_HEADER = "rivuletAnswer";

    AnswerReturnValueHandler(List<Encoder<?>> encoders, ReactiveAdapterRegistry registry) {
        super(encoders, registry);
    }

    @Override
    protected Mono<Void> handleEncodedContent(Flux<DataBuffer> encoded, MethodParameter returnType,
                                              Message<?> message) {
        holder(message).set(encoded);
        return Mono.empty();
    }

    @Override
    protected Mono<Void> handleNoContent(MethodParameter returnType, Message<?> message) {
        holder(message).set(Flux.empty());
        return Mono.empty();
    }

    @SuppressWarnings("unchecked")
    private static AtomicReference<Flux<DataBuffer>> holder(Message<?> message) {
        Object holder = message.getHeaders().get(ANSWER_HEADER);
        if (!(holder instanceof AtomicReference<?> ref)) {
            throw new IllegalStateException("a message without the " + ANSWER_HEADER + " header: " + message);
        }
        return (AtomicReference<Flux<DataBuffer>>) ref;
    }
}
