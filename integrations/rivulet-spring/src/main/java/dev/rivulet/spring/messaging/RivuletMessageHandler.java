package dev.rivulet.spring.messaging;

import dev.rivulet.core.interaction.Responder;
import dev.rivulet.spring.codec.RivuletStrategies;
import org.jspecify.annotations.Nullable;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageDeliveryException;
import org.springframework.messaging.handler.annotation.reactive.MessageMappingMessageHandler;
import org.springframework.messaging.handler.invocation.reactive.HandlerMethodReturnValueHandler;
import org.springframework.util.RouteMatcher;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Serves the {@code @MessageMapping} methods of {@code @Controller}s over Rivulet, as {@code RSocketMessageHandler}
 * does over RSocket: declare it as a bean (the controllers of the application context are found when it initialises)
 * or give it handlers with {@link #setHandlers(List)} and call {@link #afterPropertiesSet()}; then answer an
 * interaction session's requests with {@link #responder()}:
 * {@code Interactions.server(endpoint, handler.responder())}.
 *
 * <p>Each request goes to the method whose {@code @MessageMapping} pattern matches its route (patterns and
 * {@code @DestinationVariable}s as the strategies' route matcher reads them), whatever its interaction model; the
 * model decides what is done with the method's answer:
 * <ul>
 *   <li>fire-and-forget: the method runs, its answer (if any) is dropped;</li>
 *   <li>request-response: the first value of what it returns ({@code T}, {@code Mono<T>}), or none;</li>
 *   <li>request-stream: every value of what it returns ({@code Flux<T>});</li>
 *   <li>request-channel: as request-stream, with the request's payloads as a {@code Flux<T>} argument (the first
 *       payload opened the channel, the others follow).</li>
 * </ul>
 * Arguments are decoded with the strategies' decoders under the request's content type, and answers encoded under
 * the same content type into registered memory. A method that fails, or a request no method matches, fails that
 * request only: the requester sees a {@code RemoteApplicationException} with the error's message.
 */
public class RivuletMessageHandler extends MessageMappingMessageHandler {

    private RivuletStrategies strategies;

    public RivuletMessageHandler(RivuletStrategies strategies) {
        this.strategies = strategies;
        applyStrategies();
    }

    /** Replaces the strategies (before {@link #afterPropertiesSet()}). */
    public void setStrategies(RivuletStrategies strategies) {
        this.strategies = Objects.requireNonNull(strategies, "strategies");
        applyStrategies();
    }

    public RivuletStrategies getStrategies() {
        return strategies;
    }

    private void applyStrategies() {
        setDecoders(strategies.decoders());
        setRouteMatcher(strategies.routeMatcher());
        setReactiveAdapterRegistry(strategies.reactiveAdapterRegistry());
    }

    /** A responder that hands each request to the matching method; one may serve any number of sessions. */
    public Responder responder() {
        return new MessageMappingResponder(this, strategies);
    }

    @Override
    protected List<? extends HandlerMethodReturnValueHandler> initReturnValueHandlers() {
        List<HandlerMethodReturnValueHandler> handlers = new ArrayList<>();
        handlers.add(new AnswerReturnValueHandler(strategies.encoders(), getReactiveAdapterRegistry()));
        handlers.addAll(getReturnValueHandlerConfigurer().getCustomHandlers());
        return handlers;
    }

    /** A request no method matches fails, rather than completing unanswered (the base class only logs it). */
    @Override
    protected void handleNoMatch(RouteMatcher.@Nullable Route destination, Message<?> message) {
        throw new MessageDeliveryException(message,
                "no @MessageMapping method for route '" + (destination == null ? "" : destination.value()) + "'");
    }
}
