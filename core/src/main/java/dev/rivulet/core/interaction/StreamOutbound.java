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
    private final Context context;
    /** The request frame a responder holds until this side of the stream is over, however it ends. */
    private final @Nullable Buffer request;
    /** Told of a failure, and stopped when this side is over. */
    private final @Nullable Observation observation;
    @SuppressWarnings("unused") // through ENDED
    private volatile int ended;
    private @Nullable Subscription upstream;
    private long pendingCredits;
    private boolean sentFirst;
    /** Credits for the peer's answers, carried by a channel's opening frame. */
    private int channelCredits;
    private volatile boolean done;

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
            return;
        }
        done = true;
        boolean opened = shape != Shape.CHANNEL_REQUESTS || sentFirst;
        stream.outboundFailed(t, opened);
        ended(t);
    }

    @Override
    public void onComplete() {
        if (done) {
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
    }

    /** The peer wants no more (its {@code CANCEL}), or the stream or session ended: stop the publisher. */
    void cancel() {
        Subscription s;
        synchronized (this) {
            if (done) {
                return;
            }
            done = true;
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
}
