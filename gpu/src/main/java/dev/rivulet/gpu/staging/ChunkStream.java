package dev.rivulet.gpu.staging;

import dev.rivulet.core.memory.Buffer;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import reactor.core.publisher.Operators;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The messages of one device message (header, chunks, maybe an abort) as the publisher of one streaming
 * {@code Endpoint.send(Publisher)}: the endpoint asks for as many as it has send slots and one more per completion,
 * so no {@code Mono} and no operation is allocated per chunk. Items are pushed by the pipeline on its loop thread,
 * only while there is demand; demand arrives from the endpoint's thread.
 */
final class ChunkStream implements Publisher<Buffer>, Subscription {

    private final Runnable wake;
    private final AtomicLong demand = new AtomicLong();
    private Subscriber<? super Buffer> subscriber;
    private volatile boolean cancelled;
    private boolean completed;

    /** @param wake run when demand arrives while the pipeline may be waiting for it */
    ChunkStream(Runnable wake) {
        this.wake = wake;
    }

    @Override
    public void subscribe(Subscriber<? super Buffer> s) {
        if (subscriber != null) {
            Operators.error(s, new IllegalStateException("a chunk stream has one subscriber"));
            return;
        }
        subscriber = s;
        s.onSubscribe(this);
    }

    @Override
    public void request(long n) {
        if (n <= 0) {
            return;
        }
        long before = demand.getAndAccumulate(n, (d, x) -> d + x < 0 ? Long.MAX_VALUE : d + x);
        if (before == 0) {
            wake.run();
        }
    }

    @Override
    public void cancel() {
        cancelled = true;
    }

    /** Whether the endpoint stopped taking items (it failed, or never subscribed). */
    boolean gone() {
        return subscriber == null || cancelled;
    }

    /** Whether an item may be pushed now. */
    boolean ready() {
        return !gone() && !completed && demand.get() > 0;
    }

    /**
     * Pushes {@code b} (whose reference the send takes). Only after {@link #ready()}; if the endpoint stopped
     * taking items meanwhile, the reference is dropped here.
     */
    void emit(Buffer b) {
        if (gone() || completed) {
            b.release();
            return;
        }
        demand.decrementAndGet();
        subscriber.onNext(b);
    }

    /** No more items: the send completes once the ones pushed have. */
    void complete() {
        if (!completed) {
            completed = true;
            if (subscriber != null && !cancelled) {
                subscriber.onComplete();
            }
        }
    }

    boolean isCompleted() {
        return completed;
    }
}
