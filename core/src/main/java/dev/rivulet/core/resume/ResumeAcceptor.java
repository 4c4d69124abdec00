package dev.rivulet.core.resume;

import dev.rivulet.core.Endpoint;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;

/**
 * The server side of resumable sessions over endpoints from any source: {@link #apply} takes each accepted endpoint,
 * which must open with SETUP (a new session, given to the handler) or RESUME (an existing session continues on it).
 * A session whose connection is lost is kept for the spec's session timeout, then expires. A resume naming a session
 * this acceptor does not hold (forged, expired, or from before a restart) is refused and its connection closed,
 * without creating anything. {@link dev.rivulet.core.RivuletServer#handleResumable} is this as a server's handler.
 */
public final class ResumeAcceptor implements Function<Endpoint, Publisher<Void>> {

    private final ResumeSpec spec;
    private final Function<? super ResumableSession, ? extends Publisher<Void>> handler;
    private final ConcurrentMap<SessionToken, Session> sessions = new ConcurrentHashMap<>();
    private final ServerRole role;

    private ResumeAcceptor(ResumeSpec spec, Function<? super ResumableSession, ? extends Publisher<Void>> handler) {
        this.spec = spec;
        this.handler = handler;
        this.role = new ServerRole(spec.sessionTimeout(), sessions);
    }

    /**
     * An acceptor that gives each new session to {@code handler}; the session ends when the publisher the handler
     * returns terminates (or when it expires or the client closes it).
     */
    public static ResumeAcceptor create(ResumeSpec spec,
                                        Function<? super ResumableSession, ? extends Publisher<Void>> handler) {
        return new ResumeAcceptor(Objects.requireNonNull(spec, "spec"), Objects.requireNonNull(handler, "handler"));
    }

    /** Serves one connection; the returned publisher completes when the connection closes. */
    @Override
    public Publisher<Void> apply(Endpoint endpoint) {
        ServerHandshake.accept(endpoint, spec, role, sessions, handler);
        return endpoint.onClose().onErrorResume(e -> Mono.empty());
    }

    /** Sessions held now: connected, or waiting to be resumed. */
    public int sessions() {
        return sessions.size();
    }
}
