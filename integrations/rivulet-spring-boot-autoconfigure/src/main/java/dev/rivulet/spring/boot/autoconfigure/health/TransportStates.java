package dev.rivulet.spring.boot.autoconfigure.health;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;

import dev.rivulet.core.Transport;

/**
 * Whether a transport is open, closing or closed. A disposed transport is closing until its {@link
 * Transport#onDispose()} completes; that completion is watched once per transport (not per health check, which would
 * pile subscribers on an open transport), and forgotten with the transport.
 */
final class TransportStates {

    enum State {
        OPEN, CLOSING, CLOSED;

        String detail() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final Map<Transport, Boolean> watched = Collections.synchronizedMap(new WeakHashMap<>());
    private final Set<Transport> closed = Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

    State of(Transport transport) {
        watched.computeIfAbsent(transport, t -> {
            t.onDispose().subscribe(null, e -> closed.add(t), () -> closed.add(t));
            return Boolean.TRUE;
        });
        if (!transport.isDisposed()) {
            return State.OPEN;
        }
        return closed.contains(transport) ? State.CLOSED : State.CLOSING;
    }
}
