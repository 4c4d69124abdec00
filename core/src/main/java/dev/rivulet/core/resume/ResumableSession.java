package dev.rivulet.core.resume;

import dev.rivulet.core.memory.Access;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.lang.foreign.MemorySegment;
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
 *
 * <p>Each side can also {@linkplain #expose expose} memory to the other for the session's life, and run
 * {@code put}, {@code get} and atomics on what the other exposed. These travel on the session's connections like
 * messages: each is numbered, kept until answered (at most the peer's window of them; one beyond waits), issued again
 * on the next connection if its answer was lost, and applied by the target's session exactly once (a repeat is
 * answered from the answer kept for it). They are applied by the target's session thread, not by a NIC: the price of
 * exactly once across a broken connection. Operations complete in the order they were called; they end, when the
 * session ends, as sends do.
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

    /**
     * Exposes {@code memory} to the peer for this session, with {@code rights} among {@link Access#REMOTE_READ}
     * (its {@code get}), {@link Access#REMOTE_WRITE} ({@code put}) and {@link Access#REMOTE_ATOMIC} (atomics on
     * 8-byte-aligned words, atomic with this side's own atomic accesses to them). Send the peer
     * {@link SessionWindow#remote()}; it is valid in this session only, until the window is closed or the session
     * ends. The memory stays the caller's and must stay alive while exposed; this session's thread reads and writes
     * it while applying the peer's operations.
     *
     * @throws dev.rivulet.core.error.InvalidRequestException no rights, a right that is not remote, or write rights
     *                                                         on read-only memory
     * @throws dev.rivulet.core.error.ResourceClosedException the session has ended
     */
    SessionWindow expose(MemorySegment memory, Access... rights);

    /**
     * Writes {@code bytes} (a copy, taken on subscription) at the start of the peer's window {@code target}.
     * Completes once the peer applied it, once, across any connection loss in between. Fails with
     * {@link dev.rivulet.core.error.RemoteAccessException} when the peer refuses it (a window it withdrew, outside
     * the window, a right not granted, a handle of another session), with
     * {@link dev.rivulet.core.error.InvalidRequestException} for bytes longer than the handle, and with
     * {@link dev.rivulet.core.error.MessageTooLargeException} past what one frame carries. Cancelling a call still
     * waiting for the window withdraws it; one already issued is applied anyway.
     */
    Mono<Void> put(byte[] bytes, SessionMemory target);

    /** Reads the peer's window {@code source} (all of its {@link SessionMemory#length()}), as {@link #put}. */
    Mono<byte[]> get(SessionMemory source);

    /** Adds {@code delta} to the 64-bit word at the start of {@code target} once; emits the previous value. */
    Mono<Long> fetchAdd(SessionMemory target, long delta);

    /** 64-bit compare-and-swap, once; emits the previous value (equal to {@code expected} when it swapped). */
    Mono<Long> compareAndSwap(SessionMemory target, long expected, long desired);

    /** 64-bit swap, once; emits the previous value. */
    Mono<Long> swap(SessionMemory target, long value);

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
