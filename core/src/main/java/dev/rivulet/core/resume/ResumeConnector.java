package dev.rivulet.core.resume;

import dev.rivulet.core.Endpoint;
import reactor.core.publisher.Mono;

import java.util.Objects;

/**
 * The client side of resumable sessions over endpoints from any source: {@link #connect} sets a session up on the
 * first endpoint {@code connector} gives, and whenever the session's connection is lost subscribes to
 * {@code connector} again (with the spec's backoff) and resumes it, until the session timeout has passed since the
 * loss. {@link dev.rivulet.core.RivuletClient#connectResumable} is this with the client's own {@code connect()}.
 */
public final class ResumeConnector {

    private ResumeConnector() {
    }

    /**
     * Connects through {@code connector} (subscribed to once per connection: it must make a new connection each time)
     * and sets a new session up; emits it once the server accepted it.
     */
    public static Mono<ResumableSession> connect(Mono<Endpoint> connector, ResumeSpec spec) {
        Reconnect role = new Reconnect(Objects.requireNonNull(connector, "connector"),
                Objects.requireNonNull(spec, "spec"));
        return connector.flatMap(ep -> ClientHandshake.run(ep, null, spec, role));
    }
}
