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
import reactor.core.Exceptions;
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
            request = session.payloadOf(frame, metadataLength);
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
            case FrameType.REQUEST_FNF -> Mono.from(call(observation, () -> responder.fireAndForget(request)))
                    .doOnError(e -> failed(observation, e))
                    .doFinally(signal -> releaseRequest.run())
                    .contextWrite(context)
                    .subscribe(null, e -> log.debug("fire-and-forget handler failed on stream {}", id, e));
            case FrameType.REQUEST_RESPONSE -> answer(new MuxStream(session, id, false), null,
                    StreamOutbound.Shape.SINGLE, 1, releaseRequest, observation, context,
                    () -> responder.requestResponse(request));
            case FrameType.REQUEST_STREAM -> {
                if (n <= 0) {
                    failed(observation, null);
                    releaseRequest.run();
                    session.rejectOpen(id, ErrorCode.INVALID, "a request-stream with " + n + " initial credits");
                    return;
                }
                answer(new MuxStream(session, id, false), null, StreamOutbound.Shape.STREAM, n, releaseRequest,
                        observation, context, () -> responder.requestStream(request));
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
                answer(stream, rest, StreamOutbound.Shape.STREAM, n, releaseRequest, observation, context,
                        () -> responder.requestChannel(request, rest));
                if ((flags & Frames.COMPLETE) != 0) {
                    rest.completeEmpty(); // the requester's stream held only the opening payload
                }
            }
            default -> throw new IllegalStateException("not a request: " + type);
        }
    }

    /**
     * Opens the stream and subscribes what the handler answers under the peer's {@code credits}: the subscriber
     * itself carries the handler's {@code Context} and lets go of the request when it is over, so an answer costs
     * no operator of its own.
     */
    private void answer(MuxStream stream, @Nullable StreamInbound in, StreamOutbound.Shape shape, int credits,
                        Runnable releaseRequest, @Nullable Observation observation, Context context,
                        Supplier<? extends Publisher<Payload>> handler) {
        StreamOutbound out = new StreamOutbound(stream, shape, context, releaseRequest, observation);
        stream.attach(in, out);
        session.opened(stream);
        call(observation, handler).subscribe(out);
        out.credit(credits);
    }

    /** Calls a handler with its observation in scope, so thread-local instrumentation inside it sees it. */
    private static <T> Publisher<T> call(@Nullable Observation observation,
                                         Supplier<? extends Publisher<T>> handler) {
        try {
            Publisher<T> answer;
            if (observation == null) {
                answer = handler.get();
            } else {
                try (Observation.Scope scope = observation.openScope()) {
                    answer = handler.get();
                }
            }
            return answer != null ? answer : Mono.error(new NullPointerException("the handler returned null"));
        } catch (Throwable t) {
            Exceptions.throwIfFatal(t);
            return Mono.error(t); // a handler that throws fails its request, as one returning an error does
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
