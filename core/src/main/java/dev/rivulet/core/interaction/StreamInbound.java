package dev.rivulet.core.interaction;

import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.interaction.frame.ErrorCode;
import dev.rivulet.core.interaction.frame.FrameType;
import dev.rivulet.core.interaction.frame.Frames;
import dev.rivulet.core.memory.Buffer;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Operators;

/**
 * The payloads one stream receives, as a single-subscriber {@code Flux}: its subscriber's demand becomes credits
 * for the peer (the request frame's initial credits, then {@code REQUEST_N}), each payload is lent for its
 * {@code onNext}, and a peer that sends more than it was granted breaks only this stream. Signals are serialized on
 * this object: payloads arrive on the endpoint's polling thread, demand and cancellation from anywhere.
 */
final class StreamInbound extends Flux<Payload> implements Subscription {

    /** Credits at which demand counts as unbounded: the peer is told once and then never again. */
    static final long UNBOUNDED = Integer.MAX_VALUE;

    private final MuxStream stream;
    /** Whether the first demand sends the frame that opens the stream (requester side, until it went). */
    private boolean opening;
    /**
     * Whether this is a request-response's answer, delivered as a {@code Mono}: the first demand asks for
     * everything (the answer has no credits on the wire), and a payload ends it.
     */
    private final boolean single;
    private @Nullable CoreSubscriber<? super Payload> actual;
    private long granted;
    private long received;
    private boolean done;
    private @Nullable Throwable pendingError;
    private boolean pendingComplete;
    /**
     * Which use of this object the subscription in the subscriber's hands belongs to: a pooled record (a
     * request-response's) is used again once its subscriber saw the end, and a late {@code request} or {@code cancel}
     * through the handle of an earlier use finds another generation here and does nothing.
     */
    private int generation;

    /**
     * {@code opening}: the first demand opens the stream ({@link MuxStream#open}); {@code single}: a request-response's
     * answer (at most one payload, demand without credits on the wire).
     */
    StreamInbound(MuxStream stream, boolean opening, boolean single) {
        this.stream = stream;
        this.opening = opening;
        this.single = single;
    }

    @Override
    public void subscribe(CoreSubscriber<? super Payload> subscriber) {
        subscribe(subscriber, this);
    }

    /** Subscribes {@code subscriber}, which gets {@code handle} as its subscription. */
    void subscribe(CoreSubscriber<? super Payload> subscriber, Subscription handle) {
        synchronized (this) {
            if (actual != null) {
                Operators.error(subscriber, new IllegalStateException("a stream's payloads take one subscriber"));
                return;
            }
            actual = subscriber;
        }
        subscriber.onSubscribe(handle);
        synchronized (this) {
            if (pendingError != null) {
                subscriber.onError(pendingError);
            } else if (pendingComplete) {
                subscriber.onComplete();
            }
        }
    }

    @Override
    public void request(long n) {
        request(generation, n);
    }

    /** The subscriber of use {@code generation} asks for {@code n} more. */
    void request(int generation, long n) {
        synchronized (this) {
            if (done || generation != this.generation) {
                return;
            }
            if (n <= 0) {
                done = true;
                stream.inboundCancelled();
                deliverError(new IllegalArgumentException("§3.9 violated: request(n) needs n > 0"));
                return;
            }
            if (granted >= UNBOUNDED) {
                return;
            }
            long total = single ? UNBOUNDED : Math.min(UNBOUNDED, granted + Math.min(n, UNBOUNDED));
            int delta = (int) (total - granted);
            granted = total;
            if (opening) {
                opening = false;
                try {
                    stream.open(delta);
                } catch (RuntimeException e) {
                    done = true;
                    stream.openFailed();
                    deliverError(e);
                }
                return;
            }
            stream.writer().control(stream.id(), FrameType.REQUEST_N, 0, delta);
        }
    }

    @Override
    public void cancel() {
        cancel(generation);
    }

    /** The subscriber of use {@code generation} cancels. */
    void cancel(int generation) {
        synchronized (this) {
            if (done || generation != this.generation) {
                return;
            }
            done = true;
        }
        stream.inboundCancelled();
    }

    /**
     * This use's generation, for the handle its subscriber gets. Read (like {@link #reuse()} writes) without a lock by
     * the thread that took the record out of the session's pool, which the polling thread put it in after its last
     * change here.
     */
    int generation() {
        return generation;
    }

    /** Ready for another request-response of a pooled record: nothing of the last one is left. */
    void reuse() {
        opening = true;
        actual = null;
        granted = 0;
        received = 0;
        done = false;
        pendingError = null;
        pendingComplete = false;
    }

    /** Whether the stream's opening frame has gone out (or the stream was opened by the peer). */
    synchronized boolean isOpen() {
        return !opening;
    }

    /** A {@code PAYLOAD} frame for this stream (polling thread). */
    void onPayload(int flags, Buffer frame, int metadataLength) {
        boolean over;
        synchronized (this) {
            if (done) {
                return;
            }
            boolean next = (flags & Frames.NEXT) != 0;
            boolean complete = (flags & Frames.COMPLETE) != 0;
            Payload p = null;
            if (next) {
                if (++received > granted) {
                    done = true;
                    stream.inboundBroken(ErrorCode.INVALID, "a payload beyond the credits granted");
                    deliverError(new CreditProtocolException("the peer sent payload " + received
                            + " on a stream it was granted " + granted + " for"));
                    return;
                }
                try {
                    p = stream.payloadOf(frame, metadataLength);
                } catch (RuntimeException e) {
                    done = true;
                    stream.inboundBroken(ErrorCode.INVALID, e.getMessage());
                    deliverError(e);
                    return;
                }
            }
            if (complete) {
                done = true; // first: a subscriber that cancels from onNext has nothing left to cancel
            } else if (single && p != null) {
                // An answer that does not end its stream: the answer is all a request-response takes, the rest is
                // cancelled (what Mono.from does with a Flux).
                done = true;
                stream.inboundCancelled();
                complete = true;
            }
            CoreSubscriber<? super Payload> a = actual;
            if (p != null && a != null) {
                a.onNext(p);
            }
            if (!complete) {
                return;
            }
            stream.inboundCompleted();
            if (a != null) {
                a.onComplete();
            } else {
                pendingComplete = true;
            }
            // Its subscriber saw the end and holds a handle of this generation only: a pooled record may go back.
            over = a != null;
            if (over) {
                generation++;
            }
        }
        if (over) {
            stream.answered();
        }
    }

    /** Ends the stream with {@code error}, unless it ended already (the peer's error, the session's end). */
    void fail(Throwable error) {
        synchronized (this) {
            if (done) {
                return;
            }
            done = true;
            deliverError(error);
        }
    }

    /** The peer's stream ended before anything of it was asked for (a channel opened with its only payload). */
    void completeEmpty() {
        synchronized (this) {
            if (done) {
                return;
            }
            done = true;
            if (actual != null) {
                actual.onComplete();
            } else {
                pendingComplete = true;
            }
        }
    }

    private void deliverError(Throwable error) {
        if (actual != null) {
            actual.onError(error);
        } else {
            pendingError = error;
        }
    }
}
