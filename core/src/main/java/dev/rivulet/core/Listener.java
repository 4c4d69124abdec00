package dev.rivulet.core;

import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** A bound server address accepting endpoints. */
public interface Listener extends Disposable {

    /** The address peers connect to (with the real port when an ephemeral one was asked for). */
    String address();

    /** Endpoints as peers connect; completes when the listener is disposed. Single subscriber. */
    Flux<Endpoint> accepted();

    /** Completes once the listener stopped accepting. */
    Mono<Void> onDispose();
}
