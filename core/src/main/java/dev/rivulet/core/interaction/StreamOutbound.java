package dev.rivulet.core.interaction;

import dev.rivulet.core.interaction.frame.FrameType;
import dev.rivulet.core.interaction.frame.Frames;
import dev.rivulet.core.memory.Buffer;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * The payloads one stream sends: subscribes the local publisher (a handler's answer, a channel's requests) and asks
 * it for exactly as many payloads as the peer granted credits, each becoming a {@code PAYLOAD} frame; its end
 * becomes a {@code COMPLETE} or an {@code ERROR} frame, and the peer's {@code CANCEL} cancels it.
 */
final class StreamOutbound implements CoreSubscriber<Payload> {

    /** How the payloads go out. */
    enum Shape {
        /** A request-response answer: one frame with NEXT and COMPLETE, or a bare COMPLETE. */
        SINGLE,
        /** Stream payloads, one PAYLOAD frame each. */
        STREAM,
        /** A requester's channel: the first payload opens the stream, the rest are PAYLOAD frames. */
        CHANNEL_REQUESTS
    }

    private static final AtomicIntegerFieldUpdater<StreamOutbound> ENDED =
            AtomicIntegerFieldUpdater.newUpdater(StreamOutbound.class, "ended");

    private final MuxStream stream;
    private final Shape shape;
    /*
     * The request's context, frame and observation: set again when a pooled answer record takes up its next request
     * (reuse), on the polling thread, before the publisher is subscribed.
     */
    private Context context;
    /** The request frame a responder holds until this side of the stream is over, however it ends. */
    private @Nullable Buffer request;
    /** Told of a failure, and stopped when this side is over. */
    private @Nullable Observation observation;
    @SuppressWarnings("unused") // through ENDED
    private volatile int ended;
    private @Nullable Subscription upstream;
    private long pendingCredits;
    private boolean sentFirst;
    /** Credits for the peer's answers, carried by a channel's opening frame. */
    private int channelCredits;
    private volatile boolean done;
    /**
     * Whether this side cancelled its publisher (or gave up on it): the publisher may still signal for a while
     * (§2.8), so its stream's record is never used again. A publisher's own end, on the contrary, is its last signal
     * (§1.7). A pooled record's publisher subscribes a new {@link #subscriber()} each time, never this object
     * (§2.12).
     */
    private volatile boolean cancelled;

    StreamOutbound(MuxStream stream, Shape shape, Context context) {
        this(stream, shape, context, null, null);
    }

    /**
     * {@code context}: what the publisher sees as its subscriber's Reactor {@code Context}; {@code request}: released
     * once when this side is over; {@code observation}: told of a failure, stopped when this side is over.
     */
    StreamOutbound(MuxStream stream, Shape shape, Context context, @Nullable Buffer request,
                   @Nullable Observation observation) {
        this.stream = stream;
        this.shape = shape;
        this.context = context;
        this.request = request;
        this.observation = observation;
    }

    /**
     * Takes up the next request of a pooled answer record ({@link MuxStream#reuseForAnswer}): as new, with this
     * request's {@code context}, {@code request} frame and {@code observation}. Polling thread, before the publisher
     * is subscribed; the last use's publisher ended (its final signal), so nothing else touches this object.
     */
    void reuse(Context context, Buffer request, @Nullable Observation observation) {
        this.context = context;
        this.request = request;
        this.observation = observation;
        ENDED.set(this, 0);
        upstream = null;
        pendingCredits = 0;
        sentFirst = false;
        cancelled = false;
        done = false;
    }

    /**
     * What the publisher subscribes: for a pooled answer record, a new subscriber that forwards here, since one
     * subscriber may be subscribed only once (§2.12); otherwise this object.
     */
    CoreSubscriber<Payload> subscriber() {
        return stream.isPooled() ? new UseOf(this) : this;
    }

    private void ended(@Nullable Throwable error) {
        if (ENDED.compareAndSet(this, 0, 1)) {
            if (error != null && observation != null) {
                observation.error(error);
            }
            if (request != null) {
                request.release();
            }
            if (observation != null) {
                observation.stop();
            }
        }
    }

    /** The opening frame of a requester's channel will carry {@code n} credits for the answers. */
    void channelCredits(int n) {
        this.channelCredits = n;
    }

    @Override
    public Context currentContext() {
        return context;
    }

    @Override
    public void onSubscribe(Subscription s) {
        Objects.requireNonNull(s, "§2.13: onSubscribe(null)");
        long credits;
        synchronized (this) {
            if (!Operators.validate(upstream, s)) {
                return;
            }
            upstream = s;
            credits = pendingCredits;
            pendingCredits = 0;
        }
        if (done) {
            s.cancel();
        } else if (credits > 0) {
            s.request(credits);
        }
    }

    /** The peer granted {@code n} more payloads. */
    void credit(long n) {
        Subscription s;
        synchronized (this) {
            if (done) {
                return;
            }
            s = upstream;
            if (s == null) {
                pendingCredits = Operators.addCap(pendingCredits, n);
                return;
            }
        }
        s.request(n);
    }

    @Override
    public void onNext(Payload p) {
        Objects.requireNonNull(p, "§2.13: onNext(null)");
        if (done) {
            p.release();
            return;
        }
        try {
            switch (shape) {
                case SINGLE -> {
                    done = true;
                    stream.writer().payload(stream.id(), FrameType.PAYLOAD, Frames.NEXT | Frames.COMPLETE, 0, p);
                    stream.outboundCompleted();
                    ended(null);
                }
                case STREAM -> stream.writer().payload(stream.id(), FrameType.PAYLOAD, Frames.NEXT, 0, p);
                case CHANNEL_REQUESTS -> {
                    if (sentFirst) {
                        stream.writer().payload(stream.id(), FrameType.PAYLOAD, Frames.NEXT, 0, p);
                    } else {
                        sentFirst = true;
                        stream.writer().payload(stream.id(), FrameType.REQUEST_CHANNEL, Frames.NEXT, channelCredits, p);
                        stream.opened();
                    }
                }
            }
        } catch (RuntimeException e) {
            Subscription s = upstream;
            cancelled = true;
            if (s != null) {
                s.cancel();
            }
            done = true;
            stream.outboundFailed(e, shape != Shape.CHANNEL_REQUESTS || sentFirst);
            ended(e);
        }
    }

    @Override
    public void onError(Throwable t) {
        Objects.requireNonNull(t, "§2.13: onError(null)");
        if (done) {
            Operators.onErrorDropped(t, context);
            publisherEnded();
            return;
        }
        done = true;
        boolean opened = shape != Shape.CHANNEL_REQUESTS || sentFirst;
        stream.outboundFailed(t, opened);
        ended(t);
        publisherEnded();
    }

    @Override
    public void onComplete() {
        if (done) {
            publisherEnded(); // a request-response's answer went with its payload
            return;
        }
        done = true;
        if (shape == Shape.CHANNEL_REQUESTS && !sentFirst) {
            stream.channelEmpty();
            ended(null);
            return;
        }
        stream.writer().control(stream.id(), FrameType.PAYLOAD, Frames.COMPLETE, 0);
        stream.outboundCompleted();
        ended(null);
        publisherEnded();
    }

    /**
     * The publisher sent its last signal; unless this side cancelled it first (after which it may still signal), a
     * request-response's record may answer another request (the stream left the table when its answer went).
     */
    private void publisherEnded() {
        if (shape == Shape.SINGLE && !cancelled) {
            stream.answered();
        }
    }

    /** The peer wants no more (its {@code CANCEL}), or the stream or session ended: stop the publisher. */
    void cancel() {
        Subscription s;
        synchronized (this) {
            if (done) {
                return;
            }
            done = true;
            cancelled = true;
            s = upstream;
        }
        if (s != null) {
            s.cancel();
        }
        ended(null);
    }

    boolean isDone() {
        return done;
    }

    /** One use's subscriber of a pooled answer record: every signal goes to the record's outbound side. */
    private static final class UseOf implements CoreSubscriber<Payload> {

        private final StreamOutbound out;

        UseOf(StreamOutbound out) {
            this.out = out;
        }

        @Override
        public Context currentContext() {
            return out.currentContext();
        }

        @Override
        public void onSubscribe(Subscription s) {
            out.onSubscribe(s);
        }

        @Override
        public void onNext(Payload p) {
            out.onNext(p);
        }

        @Override
        public void onError(Throwable t) {
            out.onError(t);
        }

        @Override
        public void onComplete() {
            out.onComplete();
        }
    }
}
