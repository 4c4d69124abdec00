package dev.rivulet.core.resume;

import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.error.TransportException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

/**
 * The receiving half of a session: accepts each position once and in order (a replayed message this side already has
 * is dropped), queues what the application has not taken yet (at most this side's window, which the peer must keep
 * to), and counts what was taken, to acknowledge in batches of a quarter of the window. Guarded by the session's
 * lock.
 */
final class Inbox {

    private final int window;
    private final Sinks.Many<byte[]> messages = Sinks.many().unicast().onBackpressureBuffer();
    /** The last position that arrived. */
    private long received;
    /** The last position the application took, and the last one acknowledged to the peer. */
    private final AckCounter taken;

    Inbox(int window) {
        this.window = window;
        this.taken = new AckCounter(window);
    }

    int window() {
        return window;
    }

    long received() {
        return received;
    }

    long taken() {
        return taken.reached();
    }

    Flux<byte[]> messages() {
        return messages.asFlux();
    }

    void arrived(long position, byte[] payload) {
        if (position <= received) {
            return; // replayed across a break that happened after it arrived here
        }
        if (position != received + 1) {
            throw new CreditProtocolException("message " + position + " arrived after " + received);
        }
        if (position > taken.reached() + window) {
            throw new CreditProtocolException("message " + position + " is beyond the window: " + taken.reached()
                    + " taken, window " + window);
        }
        received = position;
        messages.tryEmitNext(payload);
    }

    /** The application took one more; whether enough were taken since the last acknowledgement to send one now. */
    boolean took() {
        taken.reach(taken.reached() + 1);
        return taken.ackNow();
    }

    /** Whether something taken was not acknowledged yet. */
    boolean ackDue() {
        return taken.due();
    }

    /** Marks everything taken as acknowledged, returning the position to acknowledge. */
    long acknowledge() {
        return taken.acknowledge();
    }

    void complete() {
        messages.tryEmitComplete();
    }

    void fail(TransportException e) {
        messages.tryEmitError(e);
    }
}
