package dev.rivulet.samples.bench;

import dev.rivulet.core.memory.Buffer;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * The JMH benchmarks' {@code receive()} subscriber: requests without bound (the transport caps it at the receive
 * queue depth) and counts each buffer (lent: receive() releases it), with no allocation per message.
 */
public final class CountingReceiver implements CoreSubscriber<Buffer> {
    private static final VarHandle COUNT;

    static {
        try {
            COUNT = MethodHandles.lookup().findVarHandle(CountingReceiver.class, "count", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // through COUNT: written by the progress thread only
    private long count;
    private volatile Throwable failure;

    @Override
    public void onSubscribe(Subscription s) {
        s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(Buffer b) {
        // receive() releases b when this returns
        COUNT.setRelease(this, (long) COUNT.getOpaque(this) + 1);
    }

    @Override
    public void onError(Throwable t) {
        failure = t;
    }

    @Override
    public void onComplete() {
    }

    public long count() {
        return (long) COUNT.getAcquire(this);
    }

    /** Waits up to {@code timeout} for {@code sent} messages; fails if fewer came or the receive failed. */
    public void awaitAll(long sent, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (count() < sent && failure == null && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000);
        }
        if (failure != null) {
            throw new IllegalStateException("receive failed", failure);
        }
        if (count() != sent) {
            throw new IllegalStateException("sent " + sent + " messages but the receiver got " + count());
        }
    }
}
