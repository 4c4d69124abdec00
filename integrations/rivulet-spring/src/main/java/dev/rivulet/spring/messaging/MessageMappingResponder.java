package dev.rivulet.spring.messaging;

import dev.rivulet.core.interaction.Metadata;
import dev.rivulet.core.interaction.Payload;
import dev.rivulet.core.interaction.Responder;
import dev.rivulet.spring.codec.PayloadBodies;
import dev.rivulet.spring.codec.RivuletStrategies;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.PooledDataBuffer;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageDeliveryException;
import org.springframework.messaging.handler.DestinationPatternsMessageCondition;
import org.springframework.messaging.handler.invocation.reactive.HandlerMethodReturnValueHandler;
import org.springframework.messaging.support.MessageBuilder;
import org.springframework.messaging.support.MessageHeaderAccessor;
import org.springframework.util.MimeType;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.concurrent.atomic.AtomicReference;

/**
 * Turns each request into a spring-messaging {@link Message} for {@link RivuletMessageHandler}, and what the method
 * answered into payloads.
 *
 * <p>The message's payload is a view of the request's data, not a copy ({@link PayloadBodies#view}): a request
 * payload stays valid until the publisher returned here terminates, and a channel's later payloads are decoded in
 * their {@code onNext}, which is when spring-messaging's payload argument resolver decodes each of them.
 */
final class MessageMappingResponder implements Responder {

    private final RivuletMessageHandler handler;
    private final RivuletStrategies strategies;

    MessageMappingResponder(RivuletMessageHandler handler, RivuletStrategies strategies) {
        this.handler = handler;
        this.strategies = strategies;
    }

    @Override
    public Mono<Void> fireAndForget(Payload request) {
        // The method runs to its end; an answer it gives anyway has nowhere to go.
        return handle(request, PayloadBodies.view(request)).doOnNext(Payload::release).then();
    }

    @Override
    public Mono<Payload> requestResponse(Payload request) {
        return handle(request, PayloadBodies.view(request)).next();
    }

    @Override
    public Flux<Payload> requestStream(Payload request) {
        return handle(request, PayloadBodies.view(request));
    }

    @Override
    public Flux<Payload> requestChannel(Payload first, Flux<Payload> rest) {
        Flux<DataBuffer> inbound = Flux.concat(Mono.fromSupplier(() -> PayloadBodies.view(first)),
                rest.map(PayloadBodies::view));
        return handle(first, inbound);
    }

    private Flux<Payload> handle(Payload request, Object body) {
        MimeType contentType = strategies.contentType(request.metadata());
        AtomicReference<Flux<DataBuffer>> answers = new AtomicReference<>();
        Metadata answerMetadata = Metadata.builder().contentType(contentType.toString()).build();
        Flux<DataBuffer> handling = Mono
                .defer(() -> handler.handleMessage(message(request, body, contentType, answers)))
                .thenMany(Flux.defer(() -> {
                    Flux<DataBuffer> encoded = answers.get();
                    return encoded == null ? Flux.<DataBuffer>empty() : encoded;
                }));
        return new InRequestObservation<>(handling)
                .map(encoded -> PayloadBodies.toPayload(encoded, answerMetadata, strategies.dataBufferFactory()))
                .doOnDiscard(PooledDataBuffer.class, DataBufferUtils::release)
                .doOnDiscard(Payload.class, Payload::release);
    }

    private Message<Object> message(Payload request, Object body, MimeType contentType,
                                    AtomicReference<Flux<DataBuffer>> answers) {
        String route = request.routeName();
        if (route == null) {
            throw new MessageDeliveryException("a request without a route: nothing to match a @MessageMapping to");
        }
        MessageHeaderAccessor headers = new MessageHeaderAccessor();
        headers.setLeaveMutable(true);
        headers.setContentType(contentType);
        headers.setHeader(DestinationPatternsMessageCondition.LOOKUP_DESTINATION_HEADER,
                strategies.routeMatcher().parseRoute(route));
        headers.setHeader(HandlerMethodReturnValueHandler.DATA_BUFFER_FACTORY_HEADER, strategies.dataBufferFactory());
        headers.setHeader(AnswerReturnValueHandler.ANSWER_HEADER, answers);
        return MessageBuilder.createMessage(body, headers.getMessageHeaders());
    }
}
