package dev.rivulet.core.interaction;

import dev.rivulet.core.interaction.frame.ErrorCode;
import dev.rivulet.core.interaction.frame.FrameType;
import dev.rivulet.core.interaction.frame.Frames;
import dev.rivulet.core.memory.Buffer;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

import java.util.function.Supplier;

/**
 * Opens the streams a peer requests: decodes the request, calls the {@link Responder}'s handler for its model on the
 * polling thread, and subscribes what the handler returns under the peer's credits. The request frame is held
 * (retained) until the handler's publisher is over, so a handler may read its request payload whenever it likes
 * until then.
 */
final class ResponderStreams {

    private static final Logger log = LoggerFactory.getLogger(ResponderStreams.class);

    private final InteractionSession session;
    private final Responder responder;
    private final Propagation propagation;
    /** What this side's leases still admit; null when it sends none (and admits everything). */
    private final @Nullable LeaseWindow lease;

    ResponderStreams(InteractionSession session, Responder responder, Propagation propagation,
                     @Nullable LeaseWindow lease) {
        this.session = session;
        this.responder = responder;
        this.propagation = propagation;
        this.lease = lease;
    }

    /** This side sent {@code lease}: it admits what it promised, and no more. */
    void leased(Lease l) {
        if (lease != null) {
            lease.renew(l.requests(), l.ttl().toNanos());
        }
    }

    void open(int id, int type, int flags, int n, Buffer frame, int metadataLength) {
        Payload request;
        try {
            request = MuxStream.payloadOf(frame, metadataLength);
        } catch (RuntimeException e) {
            if (type != FrameType.REQUEST_FNF) {
                session.rejectOpen(id, ErrorCode.INVALID, e.getMessage());
            }
            return;
        }
        if (lease != null && !lease.tryTake()) {
            if (type != FrameType.REQUEST_FNF) {
                session.rejectOpen(id, ErrorCode.REJECTED_RETRY, lease.describe());
            } else {
                log.debug("fire-and-forget on stream {} dropped: {}", id, lease.describe());
            }
            return;
        }
        frame.retain();
        Observation observation = propagation.serving(request, modelOf(type));
        Context context = propagation.isActive() ? propagation.handlerContext(request, observation) : Context.empty();
        Runnable releaseRequest = observation == null ? frame::release : () -> {
            frame.release();
            observation.stop();
        };
        switch (type) {
            case FrameType.REQUEST_FNF -> Mono.defer(() -> call(observation, () -> responder.fireAndForget(request)))
                    .doOnError(e -> failed(observation, e))
                    .doFinally(signal -> releaseRequest.run())
                    .contextWrite(context)
                    .subscribe(null, e -> log.debug("fire-and-forget handler failed on stream {}", id, e));
            case FrameType.REQUEST_RESPONSE -> answer(id, StreamOutbound.Shape.SINGLE, 1,
                    Mono.defer(() -> call(observation, () -> responder.requestResponse(request))), null,
                    releaseRequest, observation, context);
            case FrameType.REQUEST_STREAM -> {
                if (n <= 0) {
                    failed(observation, null);
                    releaseRequest.run();
                    session.rejectOpen(id, ErrorCode.INVALID, "a request-stream with " + n + " initial credits");
                    return;
                }
                answer(id, StreamOutbound.Shape.STREAM, n,
                        Flux.defer(() -> call(observation, () -> responder.requestStream(request))), null,
                        releaseRequest, observation, context);
            }
            case FrameType.REQUEST_CHANNEL -> {
                if (n <= 0) {
                    failed(observation, null);
                    releaseRequest.run();
                    session.rejectOpen(id, ErrorCode.INVALID, "a request-channel with " + n + " initial credits");
                    return;
                }
                MuxStream stream = new MuxStream(session, id, false);
                StreamInbound rest = new StreamInbound(stream, null);
                subscribeAnswer(stream, rest, StreamOutbound.Shape.STREAM, n,
                        Flux.defer(() -> call(observation, () -> responder.requestChannel(request, rest))),
                        releaseRequest, observation, context);
                if ((flags & Frames.COMPLETE) != 0) {
                    rest.completeEmpty(); // the requester's stream held only the opening payload
                }
            }
            default -> throw new IllegalStateException("not a request: " + type);
        }
    }

    private void answer(int id, StreamOutbound.Shape shape, int credits, Publisher<Payload> answer,
                        @Nullable StreamInbound in, Runnable releaseRequest, @Nullable Observation observation,
                        Context context) {
        subscribeAnswer(new MuxStream(session, id, false), in, shape, credits, answer, releaseRequest, observation,
                context);
    }

    private void subscribeAnswer(MuxStream stream, @Nullable StreamInbound in, StreamOutbound.Shape shape, int credits,
                                 Publisher<Payload> answer, Runnable releaseRequest,
                                 @Nullable Observation observation, Context context) {
        StreamOutbound out = new StreamOutbound(stream, shape, Context.empty());
        stream.attach(in, out);
        session.opened(stream);
        Flux.from(answer)
                .doOnError(e -> failed(observation, e))
                .doFinally(signal -> releaseRequest.run())
                .contextWrite(context)
                .subscribe(out);
        out.credit(credits);
    }

    /** Calls a handler with its observation in scope, so thread-local instrumentation inside it sees it. */
    private static <T> T call(@Nullable Observation observation, Supplier<T> handler) {
        if (observation == null) {
            return handler.get();
        }
        try (Observation.Scope scope = observation.openScope()) {
            return handler.get();
        }
    }

    private static void failed(@Nullable Observation observation, @Nullable Throwable e) {
        if (observation != null && e != null) {
            observation.error(e);
        }
    }

    private static String modelOf(int type) {
        return switch (type) {
            case FrameType.REQUEST_FNF -> "fire-and-forget";
            case FrameType.REQUEST_RESPONSE -> "request-response";
            case FrameType.REQUEST_STREAM -> "request-stream";
            default -> "request-channel";
        };
    }
}
