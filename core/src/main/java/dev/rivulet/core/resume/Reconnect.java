package dev.rivulet.core.resume;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.error.SessionExpiredException;
import dev.rivulet.core.error.TransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * The client's role in a session: when the connection is lost, connect again with backoff and resume, until the
 * session timeout has passed since the loss or the server says it no longer knows the session; then the session
 * expires. Disposing what {@link #broken} returns (the session closed, or resumed) stops connecting, and closes a
 * connection still being set up.
 */
final class Reconnect implements Session.Role {

    private static final Logger log = LoggerFactory.getLogger(Reconnect.class);

    private final Mono<Endpoint> connector;
    private final ResumeSpec spec;

    Reconnect(Mono<Endpoint> connector, ResumeSpec spec) {
        this.connector = connector;
        this.spec = spec;
    }

    @Override
    public Disposable broken(Session session, TransportException why) {
        log.debug("resuming {} after: {}", session, why.getMessage());
        return connector.flatMap(ep -> ClientHandshake.run(ep, session, spec, this))
                .retryWhen(Retry.backoff(Long.MAX_VALUE, spec.minBackoff()).maxBackoff(spec.maxBackoff())
                        .filter(e -> !(e instanceof SessionExpiredException) && !session.isDisposed()))
                .timeout(spec.sessionTimeout())
                .subscribe(null, e -> session.expire(e instanceof SessionExpiredException expired ? expired
                        : new SessionExpiredException("the session was not resumed within " + spec.sessionTimeout()
                        + " of losing its connection (" + why.getMessage() + ")", e)));
    }

    @Override
    public void ended(Session session) {
    }
}
