package dev.rivulet.core.resume;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.error.TransportException;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The server's side of a new connection until it belongs to a session: the first frame must be SETUP (a new session
 * with a fresh token, handed to the application) or RESUME naming a session held here with positions it can resume
 * from; anything else, or nothing within {@link #DEADLINE_SECONDS}, closes the connection. Refusals create nothing.
 */
final class ServerHandshake implements Link.Listener {

    private static final Logger log = LoggerFactory.getLogger(ServerHandshake.class);
    /** How long a connection may stay silent before its first frame. */
    static final long DEADLINE_SECONDS = 10;

    private final ResumeSpec spec;
    private final ServerRole role;
    private final ConcurrentMap<SessionToken, Session> sessions;
    private final Function<? super ResumableSession, ? extends Publisher<Void>> handler;
    private volatile boolean answered;
    private volatile Disposable deadline = Disposables.disposed();

    private ServerHandshake(ResumeSpec spec, ServerRole role, ConcurrentMap<SessionToken, Session> sessions,
                            Function<? super ResumableSession, ? extends Publisher<Void>> handler) {
        this.spec = spec;
        this.role = role;
        this.sessions = sessions;
        this.handler = handler;
    }

    static void accept(Endpoint endpoint, ResumeSpec spec, ServerRole role,
                       ConcurrentMap<SessionToken, Session> sessions,
                       Function<? super ResumableSession, ? extends Publisher<Void>> handler) {
        ServerHandshake handshake = new ServerHandshake(spec, role, sessions, handler);
        Link link = new Link(endpoint, handshake);
        handshake.deadline = Schedulers.parallel().schedule(() -> {
            if (!handshake.answered) {
                link.abort();
            }
        }, DEADLINE_SECONDS, TimeUnit.SECONDS);
        link.start();
    }

    @Override
    public void onData(Link link, long position, byte[] payload) {
        throw new CreditProtocolException("a message arrived before the session was set up");
    }

    @Override
    public void onControl(Link link, byte type, ByteBuffer body) {
        if (answered) {
            throw new CreditProtocolException("a second handshake frame on one connection");
        }
        answered = true;
        deadline.dispose();
        if (type != Frames.SETUP && type != Frames.RESUME) {
            throw new CreditProtocolException("a connection must open with SETUP or RESUME, not frame " + type);
        }
        if (body.get() != Frames.VERSION) {
            refuse(link, "unsupported session protocol version");
        } else if (type == Frames.SETUP) {
            setUp(link, body.getInt());
        } else {
            resume(link, SessionToken.read(body), body.getLong(), body.getLong());
        }
    }

    private void setUp(Link link, int peerWindow) {
        if (peerWindow < 1) {
            throw new CreditProtocolException("the client offered a window of " + peerWindow);
        }
        SessionToken token = SessionToken.random();
        Session session = new Session(token, role, spec.window(), peerWindow, link.maxPayload());
        sessions.put(token, session);
        session.attach(link, Session.Answer.SETUP_OK, 0, 0);
        Publisher<Void> done;
        try {
            done = Objects.requireNonNull(handler.apply(session), "the handler returned null");
        } catch (RuntimeException e) {
            log.warn("handler of {} failed; the session is closed", session, e);
            session.dispose();
            return;
        }
        Mono.from(done)
                .doFinally(s -> session.dispose())
                .subscribe(null, e -> log.warn("handler of {} failed; the session is closed", session, e));
    }

    private void resume(Link link, SessionToken token, long received, long taken) {
        Session session = sessions.get(token);
        if (session == null || !session.attach(link, Session.Answer.RESUME_OK, received, taken)) {
            refuse(link, "no such session (expired, closed, or never issued here)");
        }
    }

    private static void refuse(Link link, String reason) {
        link.send(Frames.rejected(reason));
        link.close();
    }

    @Override
    public void onLost(Link link, TransportException why) {
        deadline.dispose();
    }
}
