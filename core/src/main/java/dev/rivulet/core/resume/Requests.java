package dev.rivulet.core.resume;

import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.error.TransportException;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.MonoSink;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The requesting half of a session's operations on the peer's windows: calls waiting for the window, and calls
 * numbered, written and kept until their answer arrives, to be re-issued on the next connection if it does not. The
 * window counts from the last answer acknowledged to the target, which keeps each answer until then: a call beyond it,
 * or made while the session has no connection, waits here unnumbered, and only a waiting call can be withdrawn (the
 * target applies a numbered one whatever happens). Answers arrive in the order the calls were numbered. Guarded by
 * the session's lock.
 */
final class Requests {

    /** One call: its frame (numbered on admission), its caller, and how an answer's result becomes its value. */
    static final class Call<T> {
        private final byte[] frame;
        private final MonoSink<T> sink;
        private final Function<ByteBuffer, @Nullable T> result;
        private long id;

        Call(byte[] frame, MonoSink<T> sink, Function<ByteBuffer, @Nullable T> result) {
            this.frame = frame;
            this.sink = sink;
            this.result = result;
        }

        /** Completes the caller with {@code answer} (what follows the id in an ANSWER frame). */
        void answered(ByteBuffer answer) {
            if (answer.get() == Frames.OK) {
                sink.success(result.apply(answer));
            } else {
                // The same text whatever the reason, as the target does not say it.
                sink.error(new RemoteAccessException("the peer refused the operation: no such window, a withdrawn "
                        + "one, outside it, a right not granted, or a misaligned word"));
            }
        }

        void fail(TransportException e) {
            sink.error(e);
        }
    }

    private final ArrayDeque<Call<?>> waiting = new ArrayDeque<>();
    private final ArrayDeque<Call<?>> inFlight = new ArrayDeque<>();
    private final int window;
    /** The last id given to a call. */
    private long issued;
    /** The last id answered (answers arrive in order), and the last one whose answer the target was told of. */
    private final AckCounter answered;

    Requests(int peerWindow) {
        this.window = peerWindow;
        this.answered = new AckCounter(peerWindow);
    }

    void offer(Call<?> call) {
        waiting.add(call);
    }

    /** Withdraws a call still waiting for the window (its subscriber cancelled); a numbered one stays. */
    void withdraw(MonoSink<?> sink) {
        waiting.removeIf(c -> c.sink == sink);
    }

    /** Numbers waiting calls as far as the window allows, writing each. Only while linked: until then they wait. */
    void admit(Consumer<byte[]> write) {
        while (!waiting.isEmpty() && issued - answered.acknowledged() < window) {
            Call<?> c = waiting.poll();
            c.id = ++issued;
            inFlight.add(c);
            write.accept(Frames.op(c.id, c.frame));
        }
    }

    /** On a new connection: tells the target which answers arrived, re-issues the calls without one, admits more. */
    void attach(Consumer<byte[]> write) {
        if (answered.reached() > 0) { // the last acknowledgement may have been lost with the last connection
            write.accept(Frames.answered(answered.acknowledge()));
        }
        inFlight.forEach(c -> write.accept(c.frame));
        admit(write);
    }

    /** The answer to call {@code id} arrived ({@code answer} is what follows the id); returns the call it ends. */
    Call<?> answered(long id) {
        Call<?> c = inFlight.peek();
        if (c == null || c.id != id) {
            throw new CreditProtocolException("an answer to operation " + id + " while "
                    + (c == null ? "none is pending" : "operation " + c.id + " is the next one due"));
        }
        inFlight.poll();
        answered.reach(id);
        return c;
    }

    /**
     * The answers that arrived and whether the target should hear of them now: every quarter of the window, which
     * frees the window (a call blocked on a full window has over three quarters of it in flight, so this comes).
     */
    AckCounter answers() {
        return answered;
    }

    /** Every call not answered yet, which the session's end fails. */
    void drain(List<Call<?>> pending) {
        pending.addAll(inFlight);
        pending.addAll(waiting);
        inFlight.clear();
        waiting.clear();
    }

    /** Calls numbered and not answered yet (at most the window). */
    int inFlightCount() {
        return inFlight.size();
    }

    /** Calls waiting for the window or a connection. */
    int waitingCount() {
        return waiting.size();
    }
}
