package dev.rivulet.rio.stream;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.engine.AbstractListener;
import dev.rivulet.core.engine.EndpointEngine;
import dev.rivulet.core.admission.AdmissionControl;
import dev.rivulet.core.admission.ReceiveBudget;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A listening TCP socket whose connections are accepted with a blocking accept on a thread of its own (accepts are
 * rare, and keeping them off the progress loop keeps the completion queue's hot path to data only), admitted, and set
 * up on a bounded pool of handshake threads before they become endpoints. The system layer supplies the socket calls.
 *
 * <ul>
 *   <li><b>Admission</b> on the accept thread ({@link AdmissionControl}): beyond {@code security.maxConnections} open
 *       connections ({@code security.maxConnectionsPerSource} from the peer's address) a socket is closed at once,
 *       before anything is allocated for it; beyond {@code security.maxHandshakes} in set-up
 *       ({@code security.maxHandshakesPerSource} from its address) the oldest unfinished set-up is shut down to make
 *       room.</li>
 *   <li><b>Set-up</b> on at most {@code maxHandshakes} platform threads (the handshake's blocking native calls would
 *       pin a virtual thread's carrier anyway): socket options, TLS when configured, the handshake, all within
 *       {@code security.handshakeTimeout}, then the endpoint. A socket that fails any step is closed and its
 *       admission ticket returned; nothing else was made for it. An established connection holds its ticket until
 *       its endpoint closes. Its receive memory comes out of this listener's {@link ReceiveBudget}.</li>
 *   <li><b>Accept failures</b> do not stop the listener: out of descriptors ({@code EMFILE}, {@code ENFILE}), out of
 *       buffers or memory, it logs (at most every 10 s) and retries after 5 ms, doubling up to 1 s, until accepts
 *       succeed again. Only {@link #dispose()} stops it.</li>
 * </ul>
 */
public abstract class AcceptingListener extends AbstractListener {

    private static final Logger log = LoggerFactory.getLogger(AcceptingListener.class);
    private static final long FIRST_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long LOG_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** {@link #accept()}'s answer for "nothing accepted this time, try again" (EINTR, ECONNABORTED, ...). */
    protected static final long RETRY = -1;

    private final StreamTransport transport;
    private final String address;
    private final AdmissionControl admission;
    private final ReceiveBudget budget;
    private final ThreadPoolExecutor handshakes;
    /** Sockets a handshake thread is setting up: dispose ends their blocking calls. Guarded by itself. */
    private final Set<Long> inSetUp = new HashSet<>();
    private final RateLimitedLog acceptFailures = new RateLimitedLog(log, LOG_EVERY_NANOS);
    private final RateLimitedLog setUpFailures = new RateLimitedLog(log, LOG_EVERY_NANOS);
    private final RateLimitedLog refusals = new RateLimitedLog(log, LOG_EVERY_NANOS);
    private final Thread acceptor;

    protected AcceptingListener(StreamTransport transport, String address, String threadPrefix) {
        this.transport = transport;
        this.address = address;
        this.budget = transport.listenerBudget();
        this.admission = new AdmissionControl(transport.security(), transport.stats().admissionCounters(), budget,
                transport.connectionCost());
        int threads = transport.security().maxHandshakes();
        AtomicInteger n = new AtomicInteger();
        ThreadFactory factory = r -> Thread.ofPlatform().daemon(true)
                .name(threadPrefix + "handshake-" + n.incrementAndGet() + "-" + address).unstarted(r);
        // At most maxHandshakes sockets are admitted into set-up at once, so the queue stays short.
        this.handshakes = new ThreadPoolExecutor(threads, threads, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                factory);
        this.handshakes.allowCoreThreadTimeOut(true);
        this.acceptor = Thread.ofPlatform().daemon(true).name(threadPrefix + address).unstarted(this::run);
    }

    /** Blocks for the next connection: its socket handle, or {@link #RETRY}; throws when accepting failed. */
    protected abstract long accept() throws Exception;

    /** The peer's name for the endpoint ({@code scheme://host:port} where the system can tell). */
    protected abstract String remoteName(long socket);

    /** The peer's address as an admission source ({@link AdmissionControl#sourceOf}); throws when it is gone. */
    protected abstract Object source(long socket);

    /** Makes a blocked {@link #accept()} return (shutting the listening socket down does it on both systems). */
    protected abstract void interruptAccept();

    /** Closes the listening socket, once the acceptor has stopped. */
    protected abstract void closeListening();

    public void start() {
        acceptor.start();
    }

    /** This listener's admission counts (for tests and diagnostics). */
    public AdmissionControl admission() {
        return admission;
    }

    /** What this listener's connections have committed ahead of their bytes (for tests and diagnostics). */
    public ReceiveBudget budget() {
        return budget;
    }

    private void run() {
        long backoff = 0;
        while (!isDisposed()) {
            long socket;
            try {
                socket = accept();
            } catch (Exception | Error e) {
                if (isDisposed()) {
                    break;
                }
                backoff = backoff == 0 ? FIRST_BACKOFF_NANOS : Math.min(MAX_BACKOFF_NANOS, backoff * 2);
                acceptFailures.warn("accept on " + address + " failed; retrying in "
                        + TimeUnit.NANOSECONDS.toMillis(backoff) + " ms", e);
                LockSupport.parkNanos(this, backoff); // dispose() unparks
                continue;
            }
            backoff = 0;
            if (socket != RETRY) {
                try {
                    admit(socket);
                } catch (Throwable t) {
                    // Out of memory or threads while handing a socket over: that socket is dropped, the listener
                    // goes on (a thread that ends here would leave the port open and answered by nobody).
                    transport.closeSocket(socket);
                    setUpFailures.warn("admitting a connection on " + address + " failed", t);
                }
            }
        }
    }

    /** On the accept thread: closes the socket at once when the listener is full, else hands it to set-up. */
    private void admit(long socket) {
        Object source;
        try {
            source = source(socket);
        } catch (RuntimeException e) {
            transport.closeSocket(socket); // gone before we could ask who it was (reset right after connecting)
            return;
        }
        AdmissionControl.Ticket ticket = admission.admit(source, () -> evict(socket));
        if (ticket == null) {
            transport.closeSocket(socket);
            refusals.warn("connection refused on " + address + ": " + admission.connections()
                    + " connections open, " + admission.connections(source) + " of them from " + source
                    + " (security.maxConnections " + transport.security().maxConnections()
                    + ", security.maxConnectionsPerSource " + transport.security().maxConnectionsPerSource() + ")",
                    null);
            return;
        }
        synchronized (inSetUp) {
            if (isDisposed()) {
                transport.closeSocket(socket);
                ticket.close();
                return;
            }
            inSetUp.add(socket);
        }
        try {
            handshakes.execute(() -> setUp(socket, ticket));
        } catch (RejectedExecutionException e) {
            if (leaveSetUp(socket)) {
                transport.closeSocket(socket);
            }
            ticket.close();
        }
    }

    /**
     * On the accept thread: a newer connection needs the slot of {@code socket}'s unfinished set-up. Its socket is shut
     * down (not closed: its set-up thread may be inside a call on it, and a closed descriptor can be reused at once),
     * so that thread fails, closes it and lets go.
     */
    private void evict(long socket) {
        synchronized (inSetUp) {
            if (inSetUp.contains(socket)) {
                transport.shutdownSocket(socket);
            }
        }
    }

    /** On a handshake thread: options, handshake, endpoint; on any failure the socket is closed and nothing kept. */
    private void setUp(long socket, AdmissionControl.Ticket ticket) {
        EndpointEngine endpoint = null;
        try {
            StreamTransport.Accepted agreed = transport.acceptHandshake(socket);
            String remote = remoteName(socket);
            if (!leaveSetUp(socket)) {
                ticket.close(); // dispose() took the socket over and closes it
                return;
            }
            if (!ticket.established()) {
                transport.closeSocket(socket); // evicted just as its set-up finished: its slot is someone else's
                return;
            }
            try {
                endpoint = transport.attach(socket, remote, agreed.peer(), agreed.tls(), budget,
                        transport.security().authenticatesPeers());
            } catch (RuntimeException | Error e) {
                transport.closeSocket(socket);
                throw e;
            }
        } catch (RuntimeException | Error e) {
            if (leaveSetUp(socket)) {
                transport.closeSocket(socket);
            }
            ticket.close();
            if (!isDisposed()) {
                setUpFailures.warn("connection set-up on " + address + " failed", e);
            }
            return;
        }
        endpoint.onClose().subscribe(null, e -> ticket.close(), ticket::close);
        if (!offer(endpoint)) {
            endpoint.dispose();
        }
    }

    /** The socket leaves set-up; false when dispose() has it already (then dispose closes it). */
    private boolean leaveSetUp(long socket) {
        synchronized (inSetUp) {
            return inSetUp.remove(socket);
        }
    }

    @Override
    public String address() {
        return address;
    }

    /**
     * Stops accepting, ends the handshakes in progress (their sockets are shut down, so their blocking calls
     * return and the set-up threads close them), closes the listening socket. Endpoints already made stay open;
     * they belong to the transport.
     */
    @Override
    protected void stop() {
        interruptAccept();
        LockSupport.unpark(acceptor);
        try {
            acceptor.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (inSetUp) {
            for (long s : inSetUp) {
                transport.shutdownSocket(s);
            }
        }
        handshakes.shutdown();
        try {
            if (!handshakes.awaitTermination(5, TimeUnit.SECONDS)) {
                log.warn("handshakes on {} did not end within 5 s", address);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (inSetUp) {
            // Whatever is still here was never picked up by a set-up thread.
            for (long s : inSetUp) {
                transport.closeSocket(s);
            }
            inSetUp.clear();
        }
        closeListening();
    }
}
