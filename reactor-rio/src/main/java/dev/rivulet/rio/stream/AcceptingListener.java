package dev.rivulet.rio.stream;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A listening TCP socket whose connections are accepted with a blocking accept on a thread of its own: accepts are
 * rare, and keeping them off the progress loop keeps the completion queue's hot path to data only. Each accepted
 * socket becomes an endpoint whose data goes through its loop's queues. The system layer supplies the socket calls.
 */
public abstract class AcceptingListener implements Listener {

    private static final Logger log = LoggerFactory.getLogger(AcceptingListener.class);

    /** {@link #accept()}'s answer for "nothing accepted this time, try again" (EINTR, ECONNABORTED, ...). */
    protected static final long RETRY = -1;

    private final String address;
    private final Sinks.Many<Endpoint> accepted = Sinks.many().unicast().onBackpressureBuffer();
    private final Sinks.Empty<Void> disposed = Sinks.empty();
    private final Thread acceptor;
    private volatile boolean isDisposed;

    protected AcceptingListener(String address, String threadPrefix) {
        this.address = address;
        this.acceptor = Thread.ofPlatform().daemon(true).name(threadPrefix + address).unstarted(this::run);
    }

    /** Blocks for the next connection: its socket handle, or {@link #RETRY}; throws when the listener must stop. */
    protected abstract long accept() throws Exception;

    /** Makes the endpoint of an accepted socket (owning the socket from then on). */
    protected abstract Endpoint attach(long socket) throws Exception;

    /** Closes a socket that never became an endpoint. */
    protected abstract void closeAccepted(long socket);

    /** Makes a blocked {@link #accept()} return (shutting the listening socket down does it on both systems). */
    protected abstract void interruptAccept();

    /** Closes the listening socket, once the acceptor has stopped. */
    protected abstract void closeListening();

    public void start() {
        acceptor.start();
    }

    private void run() {
        while (!isDisposed) {
            long socket;
            try {
                socket = accept();
            } catch (Exception e) {
                if (!isDisposed) {
                    log.warn("accept on {} failed; the listener stops", address, e);
                }
                break;
            }
            if (socket == RETRY) {
                continue;
            }
            try {
                Endpoint e = attach(socket);
                if (!offer(e)) {
                    e.dispose();
                }
            } catch (Exception e) {
                log.warn("could not set up the connection accepted on {}", address, e);
                closeAccepted(socket);
            }
        }
    }

    private synchronized boolean offer(Endpoint e) {
        return !isDisposed && accepted.tryEmitNext(e).isSuccess();
    }

    protected boolean disposing() {
        return isDisposed;
    }

    @Override
    public String address() {
        return address;
    }

    @Override
    public Flux<Endpoint> accepted() {
        return accepted.asFlux();
    }

    @Override
    public Mono<Void> onDispose() {
        return disposed.asMono();
    }

    @Override
    public void dispose() {
        synchronized (this) {
            if (isDisposed) {
                return;
            }
            isDisposed = true;
        }
        interruptAccept();
        try {
            acceptor.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeListening();
        accepted.tryEmitComplete();
        disposed.tryEmitEmpty();
    }

    @Override
    public boolean isDisposed() {
        return isDisposed;
    }
}
