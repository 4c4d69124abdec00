package dev.rivulet.core.resume;

import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.nio.charset.StandardCharsets;

/**
 * A conversation of messages with one peer that survives the loss of its connection for the session timeout
 * ({@link ResumeSpec}): while a new connection is made and the session resumed on it, sends wait and receive pauses;
 * afterwards each message is delivered exactly once and in order, as if nothing had happened.
 *
 * <p>Messages are copied in when sent and copied out when received (the session keeps them across connections, so it
 * cannot lend pooled memory). The sender keeps each message until the receiver's application has taken it, at most
 * the receiver's window of them; a send beyond the window waits (backpressure).
 *
 * <p>When the session ends every pending signal terminates: {@link #dispose()} here fails pending sends with
 * {@link dev.rivulet.core.error.ResourceClosedException} and completes {@code receive()}; the peer's close completes
 * {@code receive()} after the last message and fails sends with {@code ResourceClosedException}; a session that could
 * not be resumed fails both with {@link dev.rivulet.core.error.SessionExpiredException}.
 */
public interface ResumableSession extends Disposable {

    /**
     * Sends one message (a copy of {@code bytes}, taken on subscription). Completes once the peer's application has
     * taken it (its {@code receive()} emitted it), across any connection loss in between. Cancelling a send that is
     * still waiting for the window withdraws it; one already in the window is delivered anyway.
     */
    Mono<Void> send(byte[] bytes);

    /** Sends {@code text} as one UTF-8 message, as {@link #send(byte[])}. */
    default Mono<Void> send(String text) {
        return send(text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Sends each array as one message, in order, with up to the peer's window of them unacknowledged at a time;
     * completes once the peer's application has taken the last one.
     */
    Mono<Void> send(Publisher<byte[]> messages);

    /**
     * The peer's messages, each exactly once and in order for the whole session. One subscriber for the session's
     * life; demand is the window's credit: the peer sends only as far ahead as this side's window past what was taken.
     */
    Flux<byte[]> receive();

    /** Whether the session has a live connection right now (false while it is being resumed, and after it ended). */
    boolean isConnected();

    /** How many times the session was resumed on a new connection. */
    long resumes();

    /**
     * How many messages this side replayed when the session resumed: each one the peer had not received when its
     * connection broke (lost with it, or sent while there was none), counted once per resume that wrote it again.
     */
    long replayed();

    /** Completes when the session ended by a close of either side; fails with why it ended otherwise. */
    Mono<Void> onClose();

    /**
     * Ends the session now: tells the peer if connected (its {@code receive()} completes), fails pending sends with
     * {@link dev.rivulet.core.error.ResourceClosedException}, completes {@code receive()} and closes the connection.
     */
    @Override
    void dispose();
}
