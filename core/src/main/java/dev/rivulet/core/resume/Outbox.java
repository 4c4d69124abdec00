package dev.rivulet.core.resume;

import dev.rivulet.core.error.CreditProtocolException;
import reactor.core.publisher.MonoSink;

import java.util.ArrayDeque;
import java.util.List;
import java.util.function.Consumer;

/**
 * The sending half of a session: messages waiting for the peer's window, and the messages sent and kept until the
 * peer's application has taken them. What is kept is bounded by the peer's window, not by how long a connection is
 * down: a send beyond the window waits here, as a payload and its subscriber, without a position. Guarded by the
 * session's lock.
 */
final class Outbox {

    private record Waiting(byte[] payload, MonoSink<Void> sink) {
    }

    private record Kept(long position, byte[] frame, MonoSink<Void> sink) {
    }

    private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
    private final ArrayDeque<Kept> kept = new ArrayDeque<>();
    private final int window;
    /** The last position given to a message. */
    private long sent;
    /** The last position the peer's application took. */
    private long taken;

    Outbox(int peerWindow) {
        this.window = peerWindow;
    }

    int window() {
        return window;
    }

    void offer(byte[] payload, MonoSink<Void> sink) {
        waiting.add(new Waiting(payload, sink));
    }

    /** Withdraws a send still waiting for the window (its subscriber cancelled); one already sent stays. */
    void withdraw(MonoSink<Void> sink) {
        waiting.removeIf(w -> w.sink == sink);
    }

    /** Gives waiting messages their positions as far as the window allows, writing each (a no-op while unlinked). */
    void admit(Consumer<byte[]> write) {
        while (!waiting.isEmpty() && sent - taken < window) {
            Waiting w = waiting.poll();
            byte[] frame = Frames.data(++sent, w.payload);
            kept.add(new Kept(sent, frame, w.sink));
            write.accept(frame);
        }
    }

    /** The peer's application took up to {@code position}: those messages are done and leave the window. */
    void taken(long position, List<MonoSink<Void>> done) {
        if (position > sent) {
            throw new CreditProtocolException("the peer acknowledged position " + position + ", past the last sent, "
                    + sent);
        }
        while (!kept.isEmpty() && kept.peek().position <= position) {
            done.add(kept.poll().sink);
        }
        taken = Math.max(taken, position);
    }

    /**
     * Checks the positions a peer reports when it resumes: it cannot have received what was never sent, nor taken what
     * it did not receive, nor lost what it had already acknowledged.
     */
    void check(long received, long took) {
        if (received > sent || took > received || took < 0 || received < taken) {
            throw new CreditProtocolException("the peer resumes from received " + received + ", taken " + took
                    + ", but " + sent + " were sent and " + taken + " acknowledged");
        }
    }

    /**
     * Writes again, in order, what the peer did not receive before the break: everything after {@code received}.
     * Returns how many messages that was.
     */
    int replay(long received, Consumer<byte[]> write) {
        int written = 0;
        for (Kept k : kept) {
            if (k.position > received) {
                write.accept(k.frame);
                written++;
            }
        }
        return written;
    }

    /** Every subscriber still waiting for a send to finish, which the session's end fails. */
    void drain(List<MonoSink<Void>> pending) {
        kept.forEach(k -> pending.add(k.sink));
        waiting.forEach(w -> pending.add(w.sink));
        kept.clear();
        waiting.clear();
    }

    /** Messages kept for a replay right now (at most the window). */
    int keptCount() {
        return kept.size();
    }
}
