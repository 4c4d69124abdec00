package dev.rivulet.core.resume;

import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.MessageTooLargeException;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.error.SessionExpiredException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.Access;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A session of either side: its two halves ({@link Outbox}, {@link Inbox}), the link it runs on now, and how it ends.
 * Every change happens under the session's lock, so frames leave in the order they were decided and a link's loss, a
 * resume and an expiry cannot interleave; subscribers are completed after the lock is released. What to do when the
 * link is lost is the side's {@link Role}: the client connects again, the server waits for it.
 */
final class Session implements ResumableSession, Link.Listener {

    /** What a side does when the session loses its link, and when the session ends. */
    interface Role {
        /** The link was lost; returns what resuming runs on (reconnect, expiry timer), disposed on resume or end. */
        Disposable broken(Session session, TransportException why);

        void ended(Session session);
    }

    /** What the side that attaches a link answers the peer's handshake with, before anything else is sent. */
    enum Answer {
        /** Nothing: the client, which got the server's answer. */
        NONE,
        /** The new session's token and this side's window. */
        SETUP_OK,
        /** The positions this side reached, from which the client replays. */
        RESUME_OK
    }

    /** Acknowledge within this when fewer than a batch were taken: a sender of a few messages is not kept waiting. */
    private static final long ACK_DELAY_MILLIS = 2;
    private static final SecureRandom KEYS = new SecureRandom();

    private final SessionToken token;
    private final Role role;
    private final Outbox outbox;
    private final Inbox inbox;
    private final Sinks.Empty<Void> closed = Sinks.empty();
    private final int maxPayload;
    private final Requests requests;
    private final Exposed exposed;
    /** What names this session in the handles of its windows; 0 until first needed (most carry messages only). */
    private volatile long tag;
    private @Nullable Link link;
    private @Nullable Disposable resuming;
    private boolean ended;
    private boolean ackScheduled;
    private boolean linkedOnce;
    private long resumes;
    private long replayed;

    Session(SessionToken token, Role role, int window, int peerWindow, int maxPayload) {
        this.token = token;
        this.role = role;
        this.outbox = new Outbox(peerWindow);
        this.inbox = new Inbox(window);
        this.maxPayload = maxPayload;
        this.requests = new Requests(peerWindow);
        this.exposed = new Exposed(window, maxTransfer());
    }

    SessionToken token() {
        return token;
    }

    // ---- attaching a link --------------------------------------------------------------------------------------

    /**
     * Runs the session on {@code next}: its frames come here from now on, the handshake's {@code answer} leaves first,
     * then what the peer lacks. {@code peerReceived}/{@code peerTaken} are the positions the peer reported (0 for a
     * new session). Returns false, touching nothing, if the session has ended; throws, touching nothing, if the
     * positions cannot be ones this side sent.
     */
    boolean attach(Link next, Answer answer, long peerReceived, long peerTaken) {
        List<MonoSink<Void>> done = new ArrayList<>();
        Link previous;
        synchronized (this) {
            if (ended) {
                return false;
            }
            outbox.check(peerReceived, peerTaken);
            previous = link;
            boolean resumed = linkedOnce;
            linkedOnce = true;
            link = next;
            next.listener(this);
            stopResuming();
            switch (answer) {
                case SETUP_OK -> next.send(Frames.setupOk(token, inbox.window()));
                case RESUME_OK -> next.send(Frames.resumeOk(inbox.received(), inbox.taken()));
                case NONE -> { }
            }
            outbox.taken(peerTaken, done);
            replayed += outbox.replay(peerReceived, next::send);
            outbox.admit(next::send);
            requests.attach(next::send);
            if (inbox.ackDue()) { // taken since the handshake's positions were read, or acknowledged on the lost link
                next.send(Frames.ack(inbox.acknowledge()));
            }
            if (resumed) {
                resumes++;
            }
        }
        if (previous != null && previous != next) {
            previous.abort(); // the peer resumed before this side noticed the break: the old connection is dead
        }
        done.forEach(MonoSink::success);
        return true;
    }

    /** The positions this side reached, for a resume handshake: {@code [received, taken]}. */
    synchronized long[] positions() {
        return new long[] {inbox.received(), inbox.taken()};
    }

    // ---- frames from the link ----------------------------------------------------------------------------------

    @Override
    public void onData(Link from, long position, byte[] payload) {
        synchronized (this) {
            if (from == link) {
                inbox.arrived(position, payload);
            }
        }
    }

    @Override
    public void onControl(Link from, byte type, ByteBuffer body) {
        switch (type) {
            case Frames.ACK -> {
                List<MonoSink<Void>> done = new ArrayList<>();
                synchronized (this) {
                    if (from != link) {
                        return;
                    }
                    outbox.taken(body.getLong(), done);
                    outbox.admit(from::send);
                }
                done.forEach(MonoSink::success);
            }
            case Frames.OP -> {
                synchronized (this) {
                    if (from == link) {
                        from.send(exposed.arrived(body.getLong(), body));
                    }
                }
            }
            case Frames.ANSWER -> answered(from, body);
            case Frames.ANSWERED -> {
                synchronized (this) {
                    if (from == link) {
                        exposed.acknowledged(body.getLong());
                    }
                }
            }
            case Frames.CLOSE -> {
                if (from == currentLink()) {
                    end(new ResourceClosedException("the peer closed the session"), null);
                    from.close();
                }
            }
            default -> throw new CreditProtocolException("unexpected frame " + type + " in an established session");
        }
    }

    @Override
    public void onLost(Link from, TransportException why) {
        synchronized (this) {
            if (from != link || ended) {
                return;
            }
            link = null;
        }
        Disposable r = role.broken(this, why);
        synchronized (this) {
            if (!ended && link == null && resuming == null) {
                resuming = r;
                return;
            }
        }
        r.dispose(); // ended or resumed meanwhile
    }

    private synchronized @Nullable Link currentLink() {
        return link;
    }

    // ---- the application's side --------------------------------------------------------------------------------

    @Override
    public Mono<Void> send(byte[] bytes) {
        if (bytes == null) {
            return Mono.error(new InvalidRequestException("bytes are null"));
        }
        if (bytes.length > maxPayload) {
            return Mono.error(new MessageTooLargeException("a message of " + bytes.length + " bytes is larger than "
                    + "the session's limit of " + maxPayload));
        }
        return Mono.create(sink -> {
            byte[] copy = bytes.clone();
            sink.onCancel(() -> {
                synchronized (this) {
                    outbox.withdraw(sink);
                }
            });
            synchronized (this) {
                if (!ended) {
                    outbox.offer(copy, sink);
                    outbox.admit(writer());
                    return;
                }
            }
            sink.error(new ResourceClosedException("the session has ended"));
        });
    }

    @Override
    public Mono<Void> send(Publisher<byte[]> messages) {
        if (messages == null) {
            return Mono.error(new InvalidRequestException("publisher is null"));
        }
        // Sends are admitted in subscription order, so a window's worth in flight keeps both order and the window.
        return Flux.from(messages).flatMap(this::send, outbox.window()).then();
    }

    @Override
    public Flux<byte[]> receive() {
        return inbox.messages().doOnNext(m -> took());
    }

    private void took() {
        boolean schedule = false;
        synchronized (this) {
            if (inbox.took()) {
                acknowledge();
            } else {
                schedule = ackLater();
            }
        }
        if (schedule) {
            scheduleAck();
        }
    }

    /** Whether an acknowledgement must be scheduled (none is yet); the caller schedules it once out of the lock. */
    private boolean ackLater() {
        if (ackScheduled) {
            return false;
        }
        ackScheduled = true;
        return true;
    }

    private void scheduleAck() {
        Schedulers.parallel().schedule(this::delayedAck, ACK_DELAY_MILLIS, TimeUnit.MILLISECONDS);
    }

    private synchronized void delayedAck() {
        ackScheduled = false;
        if (inbox.ackDue()) {
            acknowledge();
        }
        if (requests.answers().due()) {
            acknowledgeAnswers();
        }
    }

    /** Sends an ACK if linked; otherwise the next resume handshake carries the position. */
    private void acknowledge() {
        if (link != null && !ended) {
            link.send(Frames.ack(inbox.acknowledge()));
        }
    }

    // ---- operations on the peer's windows, and this side's windows --------------------------------------------

    @Override
    public SessionWindow expose(MemorySegment memory, Access... rights) {
        Set<Access> granted = Access.setOf(rights);
        if (memory == null || !Access.REMOTE.containsAll(granted)) {
            throw new InvalidRequestException("expose memory with remote rights only, got " + granted
                    + (memory == null ? " and no memory" : ""));
        }
        if (memory.isReadOnly() && !Set.of(Access.REMOTE_READ).containsAll(granted)) {
            throw new InvalidRequestException("read-only memory can only be exposed for remote reads");
        }
        synchronized (this) {
            if (ended) {
                throw new ResourceClosedException("the session has ended");
            }
            SessionWindow window = new SessionWindow(this, tag(), exposed.nextWindowId(), KEYS.nextLong(), memory,
                    granted);
            exposed.add(window);
            return window;
        }
    }

    synchronized void withdraw(SessionWindow window) {
        exposed.withdraw(window);
    }

    @Override
    public Mono<Void> put(byte[] bytes, SessionMemory target) {
        if (bytes == null) {
            return Mono.error(new InvalidRequestException("bytes are null"));
        }
        if (bytes.length > maxTransfer()) {
            return Mono.error(new MessageTooLargeException("a put of " + bytes.length + " bytes is larger than the "
                    + "session's limit of " + maxTransfer()));
        }
        return call(target, bytes.length, () -> Frames.request(Frames.PUT, target, bytes.length).put(bytes),
                answer -> null);
    }

    @Override
    public Mono<byte[]> get(SessionMemory source) {
        if (source != null && source.length() > maxTransfer()) {
            return Mono.error(new MessageTooLargeException("a get of " + source.length() + " bytes is larger than "
                    + "the session's limit of " + maxTransfer()));
        }
        return call(source, 0, () -> Frames.request(Frames.GET, source, Integer.BYTES).putInt((int) source.length()),
                answer -> {
                    byte[] read = new byte[answer.remaining()];
                    answer.get(read);
                    return read;
                });
    }

    @Override
    public Mono<Long> fetchAdd(SessionMemory target, long delta) {
        return call(target, Long.BYTES, () -> Frames.request(Frames.FETCH_ADD, target, Long.BYTES).putLong(delta),
                ByteBuffer::getLong);
    }

    @Override
    public Mono<Long> compareAndSwap(SessionMemory target, long expected, long desired) {
        return call(target, Long.BYTES, () -> Frames.request(Frames.COMPARE_SWAP, target, 2 * Long.BYTES)
                .putLong(expected).putLong(desired), ByteBuffer::getLong);
    }

    @Override
    public Mono<Long> swap(SessionMemory target, long value) {
        return call(target, Long.BYTES, () -> Frames.request(Frames.SWAP, target, Long.BYTES).putLong(value),
                ByteBuffer::getLong);
    }

    /**
     * One operation on the peer's window {@code target}, which must reach at least {@code reach} bytes: checked here
     * against the handle (the target checks again against its window), then queued for the window of operations.
     */
    private <T> Mono<T> call(SessionMemory target, long reach, Supplier<ByteBuffer> frame,
                             Function<ByteBuffer, @Nullable T> result) {
        if (target == null) {
            return Mono.error(new InvalidRequestException("the session memory handle is null"));
        }
        if (target.session() != tag()) {
            return Mono.error(new RemoteAccessException("the session memory handle belongs to another session"));
        }
        if (target.length() < reach) {
            return Mono.error(new InvalidRequestException("the operation reaches " + reach + " bytes, the handle "
                    + target.length()));
        }
        return Mono.create(sink -> {
            Requests.Call<T> call = new Requests.Call<>(frame.get().array(), sink, result);
            sink.onCancel(() -> {
                synchronized (this) {
                    requests.withdraw(sink);
                }
            });
            synchronized (this) {
                if (!ended) {
                    requests.offer(call);
                    if (link != null) {
                        requests.admit(link::send);
                    }
                    return;
                }
            }
            sink.error(new ResourceClosedException("the session has ended"));
        });
    }

    private void answered(Link from, ByteBuffer body) {
        Requests.Call<?> done;
        boolean schedule = false;
        synchronized (this) {
            if (from != link) {
                return;
            }
            done = requests.answered(body.getLong());
            if (requests.answers().ackNow()) {
                acknowledgeAnswers();
            } else {
                schedule = ackLater();
            }
        }
        if (schedule) {
            scheduleAck();
        }
        done.answered(body);
    }

    /** Tells the target which answers arrived (it drops them) and admits the calls that frees; only while linked. */
    private void acknowledgeAnswers() {
        if (link != null && !ended) {
            link.send(Frames.answered(requests.answers().acknowledge()));
            requests.admit(link::send);
        }
    }

    private long tag() {
        long t = tag;
        if (t == 0) { // computing it twice at once is harmless: both get the same value
            t = token.tag();
            tag = t;
        }
        return t;
    }

    /** The largest put or get: what fits in a frame after an operation's header. */
    private int maxTransfer() {
        return maxPayload - (Frames.OP_HEADER - Frames.DATA_HEADER);
    }

    private Consumer<byte[]> writer() {
        Link l = link;
        return l != null ? l::send : frame -> { }; // unlinked: kept, and replayed on resume
    }

    @Override
    public synchronized boolean isConnected() {
        return link != null && !ended;
    }

    @Override
    public synchronized long resumes() {
        return resumes;
    }

    @Override
    public synchronized long replayed() {
        return replayed;
    }

    /** Messages kept for a replay right now. */
    synchronized int kept() {
        return outbox.keptCount();
    }

    /** Operations on the peer's windows numbered and not answered yet (at most the peer's window). */
    synchronized int operationsInFlight() {
        return requests.inFlightCount();
    }

    /** Operations on the peer's windows waiting for the window or a connection. */
    synchronized int operationsWaiting() {
        return requests.waitingCount();
    }

    /** Answers to the peer's operations kept until it acknowledges them. */
    synchronized int keptAnswers() {
        return exposed.keptAnswers();
    }

    @Override
    public Mono<Void> onClose() {
        return closed.asMono();
    }

    @Override
    public void dispose() {
        Link l = currentLink();
        if (end(new ResourceClosedException("the session was closed"), null) && l != null) {
            l.send(Frames.close());
            l.close();
        }
    }

    @Override
    public synchronized boolean isDisposed() {
        return ended;
    }

    /** Ends the session because it could not be resumed. */
    void expire(SessionExpiredException why) {
        Link l = currentLink();
        if (end(why, why) && l != null) {
            l.abort();
        }
    }

    /**
     * Ends the session once: pending sends fail with {@code sendError}; receive completes after what is queued
     * ({@code failure} null) or fails with it, as does {@link #onClose()}.
     */
    private boolean end(TransportException sendError, @Nullable TransportException failure) {
        List<MonoSink<Void>> pending = new ArrayList<>();
        List<Requests.Call<?>> calls = new ArrayList<>();
        synchronized (this) {
            if (ended) {
                return false;
            }
            ended = true;
            link = null;
            stopResuming();
            outbox.drain(pending);
            requests.drain(calls);
            exposed.clear();
            if (failure == null) {
                inbox.complete();
            } else {
                inbox.fail(failure);
            }
        }
        pending.forEach(s -> s.error(sendError));
        calls.forEach(c -> c.fail(sendError));
        if (failure == null) {
            closed.tryEmitEmpty();
        } else {
            closed.tryEmitError(failure);
        }
        role.ended(this);
        return true;
    }

    private void stopResuming() {
        Disposable r = resuming;
        resuming = null;
        if (r != null) {
            r.dispose();
        }
    }

    @Override
    public String toString() {
        Link l = currentLink();
        return "ResumableSession[" + (l != null ? l : "resuming") + ", resumes=" + resumes() + "]";
    }
}
