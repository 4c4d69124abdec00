package dev.rivulet.core.interaction;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.observation.transport.SenderContext;
import org.jspecify.annotations.Nullable;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What travels with a request besides its payload: the requester's chosen Reactor {@code Context} entries (as
 * headers {@code rivulet-ctx-<key>}) and its Micrometer observation (a sender context whose carrier is the request's
 * metadata, so a tracing bridge writes {@code traceparent} there), restored around the responder's handler.
 */
final class Propagation {

    /**
     * The Reactor {@code Context} key under which Micrometer keeps the current observation
     * ({@code ObservationThreadLocalAccessor.KEY}, named here so that context-propagation need not be present).
     */
    static final String OBSERVATION_KEY = "micrometer.observation";
    static final String CONTEXT_HEADER = "rivulet-ctx-";
    static final String OBSERVATION_NAME = "rivulet.requests";

    private final List<String> contextKeys;
    private final @Nullable ObservationRegistry registry;

    Propagation(InteractionOptions options) {
        this.contextKeys = options.contextKeys();
        this.registry = options.observations();
    }

    boolean isActive() {
        return !contextKeys.isEmpty() || registry != null;
    }

    /** The requester's side of one request: the payload to send, and the observation to stop when it ends. */
    record Outgoing(Payload payload, @Nullable Observation observation, AtomicBoolean stopped) {

        Outgoing(Payload payload, @Nullable Observation observation) {
            this(payload, observation, new AtomicBoolean());
        }

        /**
         * Stops the observation the first time only: a request's end can be signalled twice (a request-response is
         * a {@code Mono.from} of the request's flux, which cancels it on the answer, and the flux's completion that
         * follows still passes the completion hook), and a second stop would record the request twice.
         */
        void stop(@Nullable Throwable error) {
            if (observation != null && stopped.compareAndSet(false, true)) {
                if (error != null) {
                    observation.error(error);
                }
                observation.stop();
            }
        }
    }

    /** Adds what travels to {@code payload} (sent by a requester in {@code context}) and starts its observation. */
    Outgoing outgoing(Payload payload, String model, ContextView context) {
        Metadata.Builder carrier = payload.metadata().toBuilder();
        for (String key : contextKeys) {
            Object value = context.getOrDefault(key, null);
            if (value != null) {
                carrier.header(CONTEXT_HEADER + key, String.valueOf(value));
            }
        }
        Observation observation = null;
        if (registry != null) {
            SenderContext<Metadata.Builder> sender = new SenderContext<>(Metadata.Builder::header);
            sender.setCarrier(carrier);
            observation = Observation.createNotStarted(OBSERVATION_NAME, () -> sender, registry)
                    .parentObservation(context.getOrDefault(OBSERVATION_KEY, null));
            describe(observation, "requester", model, payload.routeName()).start();
        }
        return new Outgoing(payload.metadata(carrier.build()), observation);
    }

    /** The responder's side: the observation of serving {@code request} (started), or null. */
    @Nullable Observation serving(Payload request, String model) {
        if (registry == null) {
            return null;
        }
        ReceiverContext<Metadata> receiver = new ReceiverContext<>(Metadata::header);
        receiver.setCarrier(request.metadata());
        return describe(Observation.createNotStarted(OBSERVATION_NAME, () -> receiver, registry), "responder", model,
                request.routeName()).start();
    }

    /** The Reactor {@code Context} the handler's publisher runs with. */
    Context handlerContext(Payload request, @Nullable Observation observation) {
        Context c = Context.empty();
        for (String key : contextKeys) {
            String value = request.metadata().header(CONTEXT_HEADER + key);
            if (value != null) {
                c = c.put(key, value);
            }
        }
        return observation == null ? c : c.put(OBSERVATION_KEY, observation);
    }

    private static Observation describe(Observation o, String side, String model, @Nullable String route) {
        return o.contextualName(model + (route == null ? "" : " " + route))
                .lowCardinalityKeyValue("rivulet.side", side)
                .lowCardinalityKeyValue("rivulet.interaction", model)
                .lowCardinalityKeyValue("rivulet.route", route == null ? "none" : route);
    }
}
