package dev.rivulet.core.loop;

import reactor.core.scheduler.NonBlocking;

/**
 * A progress loop's thread. It carries Reactor's {@link NonBlocking} marker, as Reactor Netty's event-loop threads
 * do: a {@code block()} in a handler running on it fails at once with an {@link IllegalStateException} instead of
 * waiting for a completion that only this very thread could deliver, and {@code Schedulers.isInNonBlockingThread()}
 * tells libraries where they are.
 */
final class PollingThread extends Thread implements NonBlocking {

    PollingThread(String name, Runnable body) {
        super(body, name);
        setDaemon(true);
    }
}
