package dev.rivulet.core.interaction;

import dev.rivulet.core.interaction.frame.ErrorCode;
import dev.rivulet.core.interaction.frame.FrameType;
import dev.rivulet.core.interaction.frame.Frames;
import dev.rivulet.core.memory.Buffer;
import io.micrometer.observation.Observation;
import org.jctools.queues.MpscArrayQueue;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Exceptions;
import reactor.core.Fuseable;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

import java.util.Objects;

/**
 * Opens the streams a peer requests: decodes the request, calls the {@link Responder}'s handler for its model on the
 * polling thread, and subscribes what the handler returns under the peer's credits. The request frame is held
 * (retained) until the handler's publisher is over, so a handler may read its request payload whenever it likes
 * until then; an answer known when the handler returns ({@code Mono.just}, {@code Mono.empty}, {@code Mono.error})
 * is written at once, while the frame is still lent, so nothing is held for it.
 */
final class ResponderStreams {

    private static final Logger log = LoggerFactory.getLogger(ResponderStreams.class);
    /** Answer records kept for reuse: as many as are commonly answering at once; more are dropped. */
    private static final int POOLED_RECORDS = 1024;

    private final InteractionSession session;
    private final Responder responder;
    private final Propagation propagation;
    /** What this side's leases still admit; null when it sends none (and admits everything). */
    private final @Nullable LeaseWindow lease;
    /**
     * Records of request-responses whose subscribed answer ended, for the next ones: given back from whichever thread
     * the answer ended on, taken on the polling thread only.
     */
    private final MpscArrayQueue<MuxStream> answerRecords = new MpscArrayQueue<>(POOLED_RECORDS);

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
        Observation observation = propagation.serving(request, modelOf(type));
        Context context = propagation.isActive() ? propagation.handlerContext(request, observation) : Context.empty();
        if ((type == FrameType.REQUEST_STREAM || type == FrameType.REQUEST_CHANNEL) && n <= 0) {
            failed(observation, null);
            stop(observation);
            session.rejectOpen(id, ErrorCode.INVALID, "a " + modelOf(type) + " with " + n + " initial credits");
            return;
        }
        // The request is held (retained) only where the handler's answer comes later than its call: an answer known
        // at once (Mono.just, Mono.empty, Mono.error) is written while the frame is still lent.
        if (type == FrameType.REQUEST_FNF) {
            handled(id, call(observation, type, request, null), request, frame, observation, context);
            return;
        }
        if (type == FrameType.REQUEST_RESPONSE) {
            Publisher<?> answer = call(observation, type, request, null);
            if (answer instanceof Fuseable.ScalarCallable<?> known) {
                answerNow(id, known, observation);
            } else {
                frame.retain();
                subscribe(answer, answerRecord(id, frame, request, observation, context), 1);
            }
            return;
        }
        // A stream or a channel is open before its handler runs: a channel's handler may ask for or cancel the
        // requester's payloads at once.
        frame.retain();
        request.keep();
        MuxStream stream = new MuxStream(session, id, false);
        StreamInbound rest = type == FrameType.REQUEST_CHANNEL ? new StreamInbound(stream, false, false) : null;
        StreamOutbound out = answering(stream, rest, StreamOutbound.Shape.STREAM, frame, observation, context);
        subscribe(call(observation, type, request, rest), out, n);
        if (rest != null && (flags & Frames.COMPLETE) != 0) {
            rest.completeEmpty(); // the requester's stream held only the opening payload
        }
    }

    /** Opens {@code stream}, answering the peer with {@code shape} and holding the request {@code frame} until its end. */
    private StreamOutbound answering(MuxStream stream, @Nullable StreamInbound in, StreamOutbound.Shape shape,
                                     Buffer frame, @Nullable Observation observation, Context context) {
        StreamOutbound out = new StreamOutbound(stream, shape, context, frame, observation);
        stream.attach(in, out);
        session.opened(stream);
        return out;
    }

    /**
     * A request-response's answering side, on a pooled record: it registers, and holds {@code frame} and
     * {@code request} (the payload lent last) as a new one does.
     */
    private StreamOutbound answerRecord(int id, Buffer frame, Payload request, @Nullable Observation observation,
                                        Context context) {
        MuxStream stream = answerRecords.poll();
        if (stream == null) {
            stream = MuxStream.forAnswers(session);
        }
        StreamOutbound out = stream.reuseForAnswer(id, context, frame, request, observation);
        session.opened(stream);
        return out;
    }

    /** A request-response's record whose answer ended, for a later one. */
    void recycle(MuxStream record) {
        answerRecords.offer(record);
    }

    /** Subscribes what the handler answered under the peer's {@code credits}: the subscriber is the stream itself. */
    @SuppressWarnings("unchecked")
    private static void subscribe(Publisher<?> answer, StreamOutbound out, int credits) {
        ((Publisher<Payload>) answer).subscribe(out.subscriber());
        out.credit(credits);
    }

    /**
     * Calls the handler for the request's model with its observation in scope, so thread-local instrumentation inside
     * it sees it; a handler that throws or returns null answers with that error, as one returning an error does.
     */
    private Publisher<?> call(@Nullable Observation observation, int type, Payload request,
                              @Nullable StreamInbound rest) {
        try {
            Publisher<?> answer;
            if (observation == null) {
                answer = handler(type, request, rest);
            } else {
                try (Observation.Scope scope = observation.openScope()) {
                    answer = handler(type, request, rest);
                }
            }
            return answer != null ? answer : Mono.error(new NullPointerException("the handler returned null"));
        } catch (Throwable t) {
            Exceptions.throwIfFatal(t);
            return Mono.error(t);
        }
    }

    private Publisher<?> handler(int type, Payload request, @Nullable StreamInbound rest) {
        return switch (type) {
            case FrameType.REQUEST_FNF -> responder.fireAndForget(request);
            case FrameType.REQUEST_RESPONSE -> responder.requestResponse(request);
            case FrameType.REQUEST_STREAM -> responder.requestStream(request);
            case FrameType.REQUEST_CHANNEL -> responder.requestChannel(request, Objects.requireNonNull(rest));
            default -> throw new IllegalStateException("not a request: " + type);
        };
    }

    /**
     * A request-response whose answer is already known ({@code Mono.just}, {@code Mono.empty}, {@code Mono.error}):
     * it is written at once, without a stream to register or a subscription to make. Its frames are the ones a
     * subscribed answer would have sent.
     */
    private void answerNow(int id, Fuseable.ScalarCallable<?> known, @Nullable Observation observation) {
        try {
            Payload p;
            try {
                p = (Payload) known.call();
            } catch (Throwable t) {
                Exceptions.throwIfFatal(t);
                failed(observation, t);
                session.writer().error(id, t);
                return;
            }
            if (p == null) {
                session.writer().control(id, FrameType.PAYLOAD, Frames.COMPLETE, 0);
                return;
            }
            try {
                session.writer().payload(id, FrameType.PAYLOAD, Frames.NEXT | Frames.COMPLETE, 0, p);
            } catch (RuntimeException e) {
                failed(observation, e);
                session.writer().error(id, e);
            }
        } finally {
            stop(observation);
        }
    }

    /** A fire-and-forget's handler answered: its end lets go of the request; its failure is only logged. */
    private void handled(int id, Publisher<?> answer, Payload request, Buffer frame,
                         @Nullable Observation observation, Context context) {
        if (answer instanceof Fuseable.ScalarCallable<?> known) {
            try {
                known.call(); // Mono.empty(), or Mono.error(e): nothing to subscribe to
            } catch (Throwable t) {
                Exceptions.throwIfFatal(t);
                failed(observation, t);
                log.debug("fire-and-forget handler failed on stream {}", id, t);
            } finally {
                stop(observation);
            }
            return;
        }
        frame.retain();
        request.keep();
        answer.subscribe(new FireAndForgetEnd(id, frame, observation, context));
    }

    /** Lets go of a request: the frame held for it, and its observation. */
    private static void let(Buffer frame, @Nullable Observation observation) {
        frame.release();
        stop(observation);
    }

    private static void stop(@Nullable Observation observation) {
        if (observation != null) {
            observation.stop();
        }
    }

    /** Waits for a fire-and-forget handler's publisher to end, then lets go of its request. */
    private static final class FireAndForgetEnd implements CoreSubscriber<Object> {

        private final int id;
        private final Buffer frame;
        private final @Nullable Observation observation;
        private final Context context;

        FireAndForgetEnd(int id, Buffer frame, @Nullable Observation observation, Context context) {
            this.id = id;
            this.frame = frame;
            this.observation = observation;
            this.context = context;
        }

        @Override
        public Context currentContext() {
            return context;
        }

        @Override
        public void onSubscribe(Subscription s) {
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(Object ignored) {
        }

        @Override
        public void onError(Throwable t) {
            failed(observation, t);
            let(frame, observation);
            log.debug("fire-and-forget handler failed on stream {}", id, t);
        }

        @Override
        public void onComplete() {
            let(frame, observation);
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
