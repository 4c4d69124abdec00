package dev.rivulet.core.resume;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.error.SessionExpiredException;
import dev.rivulet.core.error.TransportException;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * The client's side of setting a session up or resuming it on a new connection: sends SETUP or RESUME, and on the
 * server's answer hands the link to the session before the next frame is read (the server's replay follows its
 * answer at once). Until then the endpoint is the handshake's: cancelled, failed or unanswered within the server's
 * own deadline for a first frame, it is closed.
 */
final class ClientHandshake implements Link.Listener {

    private final @Nullable Session resumed;
    private final ResumeSpec spec;
    private final Session.Role role;
    private final MonoSink<Session> sink;
    private volatile boolean handedOver;

    private ClientHandshake(@Nullable Session resumed, ResumeSpec spec, Session.Role role, MonoSink<Session> sink) {
        this.resumed = resumed;
        this.spec = spec;
        this.role = role;
        this.sink = sink;
    }

    /** Sets a new session up on {@code endpoint} ({@code session} null) or resumes {@code session} on it. */
    static Mono<Session> run(Endpoint endpoint, @Nullable Session session, ResumeSpec spec, Session.Role role) {
        return Mono.<Session>create(sink -> {
            ClientHandshake handshake = new ClientHandshake(session, spec, role, sink);
            sink.onCancel(() -> {
                if (!handshake.handedOver) {
                    endpoint.dispose();
                }
            });
            Link link = new Link(endpoint, handshake).start();
            if (session == null) {
                link.send(Frames.setup(spec.window()));
            } else {
                long[] reached = session.positions();
                link.send(Frames.resume(session.token(), reached[0], reached[1]));
            }
        }).timeout(Duration.ofSeconds(ServerHandshake.DEADLINE_SECONDS)); // unanswered: given up, and tried again
    }

    @Override
    public void onData(Link link, long position, byte[] payload) {
        throw new CreditProtocolException("a message arrived before the session was set up");
    }

    @Override
    public void onControl(Link link, byte type, ByteBuffer body) {
        if (type == Frames.SETUP_OK && resumed == null) {
            SessionToken token = SessionToken.read(body);
            int peerWindow = body.getInt();
            if (peerWindow < 1) {
                throw new CreditProtocolException("the server offered a window of " + peerWindow);
            }
            Session session = new Session(token, role, spec.window(), peerWindow, link.maxPayload());
            handedOver = true;
            session.attach(link, Session.Answer.NONE, 0, 0);
            sink.success(session);
        } else if (type == Frames.RESUME_OK && resumed != null) {
            long received = body.getLong();
            long taken = body.getLong();
            handedOver = true;
            if (resumed.attach(link, Session.Answer.NONE, received, taken)) {
                sink.success(resumed);
            } else {
                link.abort();
                sink.error(new ResourceClosedException("the session was closed while it was being resumed"));
            }
        } else if (type == Frames.REJECTED) {
            link.abort();
            sink.error(new SessionExpiredException("the server refused to resume the session: "
                    + Frames.reason(body)));
        } else {
            throw new CreditProtocolException("unexpected frame " + type + " while setting the session up");
        }
    }

    @Override
    public void onLost(Link link, TransportException why) {
        sink.error(why);
    }
}
