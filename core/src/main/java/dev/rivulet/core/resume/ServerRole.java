package dev.rivulet.core.resume;

import dev.rivulet.core.error.SessionExpiredException;
import dev.rivulet.core.error.TransportException;
import reactor.core.Disposable;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;

/**
 * The server's role in a session: when the connection is lost, keep the session for the session timeout, waiting for
 * the client to resume it, then expire it; an ended session leaves the acceptor's table, so its token is refused from
 * then on.
 */
final class ServerRole implements Session.Role {

    private final Duration timeout;
    private final ConcurrentMap<SessionToken, Session> sessions;

    ServerRole(Duration timeout, ConcurrentMap<SessionToken, Session> sessions) {
        this.timeout = timeout;
        this.sessions = sessions;
    }

    @Override
    public Disposable broken(Session session, TransportException why) {
        return Schedulers.parallel().schedule(() -> session.expire(new SessionExpiredException(
                "the client did not resume the session within " + timeout + " (" + why.getMessage() + ")")),
                timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void ended(Session session) {
        sessions.remove(session.token(), session);
    }
}
