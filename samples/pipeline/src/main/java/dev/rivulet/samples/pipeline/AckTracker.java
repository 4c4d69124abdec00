package dev.rivulet.samples.pipeline;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.error.ConnectionLostException;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Hands each acknowledgement from the receiver to the batch waiting for it. An endpoint has one {@code receive()}
 * subscriber at a time, so the sender subscribes once, here, for the connection's life, and every batch waits
 * through {@link #expect}.
 */
final class AckTracker implements Disposable {

    private final Map<Long, Sinks.One<Ack>> waiting = new ConcurrentHashMap<>();
    private final Disposable acks;
    private volatile Throwable failure;

    private AckTracker(Endpoint endpoint, ContextView context) {
        this.acks = endpoint.receive()
                .asByteArray() // copied out of the lent buffer: nothing to release
                .map(Ack::decode)
                .subscribe(this::acknowledged, this::failAll,
                        () -> failAll(new ConnectionLostException("the receiver closed the connection")),
                        Context.of(context)); // the run's context travels with the receive too
    }

    static AckTracker listen(Endpoint endpoint, ContextView context) {
        return new AckTracker(endpoint, context);
    }

    /**
     * The acknowledgement of batch {@code id}. The wait is registered now, before the batch is sent, so an ack that
     * arrives before the returned {@code Mono} is subscribed is kept, not lost.
     */
    Mono<Ack> expect(long id) {
        Sinks.One<Ack> ack = Sinks.one();
        waiting.put(id, ack);
        Throwable f = failure;
        if (f != null) {
            ack.tryEmitError(f);
        }
        return ack.asMono().doFinally(signal -> waiting.remove(id, ack));
    }

    private void acknowledged(Ack ack) {
        Sinks.One<Ack> waiter = waiting.remove(ack.batchId());
        if (waiter != null) {
            waiter.tryEmitValue(ack);
        } // else its batch gave up waiting (timeout): nothing to do
    }

    private void failAll(Throwable error) {
        failure = error;
        waiting.values().forEach(w -> w.tryEmitError(error));
    }

    @Override
    public void dispose() {
        acks.dispose();
    }

    @Override
    public boolean isDisposed() {
        return acks.isDisposed();
    }
}
