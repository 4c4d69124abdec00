package dev.rivulet.spring.messaging;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxOperator;

/**
 * Subscribes to a request's handling with the request's observation in scope, so that the {@code @MessageMapping}
 * method (which spring-messaging calls on subscription, once the arguments are decoded) sees it as the current
 * observation: {@code tracer.currentSpan()} in the method's body is the span of serving the request.
 *
 * <p>Rivulet's responder puts the observation into the Reactor {@code Context} of each request under Micrometer's
 * key; the thread-local scope it opens around {@code Responder} calls is closed by the time the returned publisher
 * is subscribed to, hence this. Work the method defers (the body of a {@code Mono.fromCallable}) reads the
 * observation from the Reactor {@code Context}, or from thread locals with Reactor's automatic context propagation.
 */
final class InRequestObservation<T> extends FluxOperator<T, T> {

    /** {@code ObservationThreadLocalAccessor.KEY}, named here so that context-propagation need not be present. */
    static final String OBSERVATION_KEY = "micrometer.observation";

    InRequestObservation(Flux<T> handling) {
        super(handling);
    }

    @Override
    public void subscribe(CoreSubscriber<? super T> actual) {
        @Nullable Object observation = actual.currentContext().getOrDefault(OBSERVATION_KEY, null);
        if (!(observation instanceof Observation current)) {
            source.subscribe(actual);
            return;
        }
        try (Observation.Scope scope = current.openScope()) {
            source.subscribe(actual);
        }
    }
}
