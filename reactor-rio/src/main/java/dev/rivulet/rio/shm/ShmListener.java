package dev.rivulet.rio.shm;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.engine.AbstractListener;
import dev.rivulet.core.engine.EndpointEngine;
import dev.rivulet.core.admission.AdmissionControl;
import dev.rivulet.core.admission.ReceiveBudget;
import jdk.net.ExtendedSocketOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A bound {@code shm://NAME}: a Unix domain socket in the owner-only socket directory, accepted on a thread of its
 * own, bounded like every Rivulet listener ({@link AdmissionControl}, the source being the peer's user): beyond
 * {@code security.maxConnections} open connections a socket is closed at once; beyond {@code security.maxHandshakes}
 * in set-up the oldest unfinished set-up is closed to make room; set-up runs on at most {@code maxHandshakes} threads
 * within {@code security.handshakeTimeout}; accept failures are retried after 5 ms doubling to 1 s.
 * {@link #dispose()} stops accepting, ends set-ups in progress and removes the socket file.
 */
final class ShmListener extends AbstractListener {

    private static final Logger log = LoggerFactory.getLogger(ShmListener.class);

    private final ShmTransport transport;
    private final String address;
    private final Path path;
    private final ServerSocketChannel server;
    private final AdmissionControl admission;
    /** What this listener's connections together may make it commit ahead of their bytes. */
    private final ReceiveBudget budget;
    private final ThreadPoolExecutor handshakes;
    private final Set<SocketChannel> inSetUp = new HashSet<>();
    private final Thread acceptor;
    private long lastWarning;

    ShmListener(ShmTransport transport, String address, Path path, ServerSocketChannel server) {
        this.transport = transport;
        this.address = address;
        this.path = path;
        this.server = server;
        this.budget = transport.listenerBudget();
        // A connection's rings and pool are a file both processes map: not counted against the budget, since every
        // peer is a process of the same user, which can reach this process's memory anyway (docs/security.md).
        this.admission = new AdmissionControl(transport.security(), transport.stats().admissionCounters(), budget, 0);
        int threads = transport.security().maxHandshakes();
        AtomicInteger n = new AtomicInteger();
        this.handshakes = new ThreadPoolExecutor(threads, threads, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                r -> Thread.ofPlatform().daemon(true).name("shm-handshake-" + n.incrementAndGet() + "-" + address)
                        .unstarted(r));
        this.handshakes.allowCoreThreadTimeOut(true);
        this.acceptor = Thread.ofPlatform().daemon(true).name("shm-accept-" + address).unstarted(this::run);
    }

    void start() {
        acceptor.start();
    }

    private void run() {
        long backoff = 0;
        while (!isDisposed()) {
            SocketChannel s;
            try {
                s = server.accept();
            } catch (ClosedChannelException closed) {
                break;
            } catch (IOException | RuntimeException e) {
                if (isDisposed()) {
                    break;
                }
                backoff = backoff == 0 ? 5_000_000L : Math.min(1_000_000_000L, backoff * 2);
                warn("accept on " + address + " failed; retrying in " + backoff / 1_000_000 + " ms", e);
                LockSupport.parkNanos(this, backoff);
                continue;
            }
            backoff = 0;
            admit(s);
        }
    }

    /** The peer's user (only this user and root can reach the owner-only socket directory). */
    private static Object source(SocketChannel s) {
        try {
            return "user " + s.getOption(ExtendedSocketOptions.SO_PEERCRED).user().getName();
        } catch (IOException | UnsupportedOperationException e) {
            return "user ?";
        }
    }

    private void admit(SocketChannel s) {
        AdmissionControl.Ticket ticket = admission.admit(source(s), () -> evict(s));
        if (ticket == null) {
            closeQuietly(s);
            warn("connection refused on " + address + ": " + admission.connections() + " open, "
                    + admission.handshakes() + " in set-up", null);
            return;
        }
        synchronized (inSetUp) {
            if (isDisposed()) {
                closeQuietly(s);
                ticket.close();
                return;
            }
            inSetUp.add(s);
        }
        try {
            handshakes.execute(() -> setUp(s, ticket));
        } catch (RejectedExecutionException e) {
            if (leaveSetUp(s)) {
                closeQuietly(s);
            }
            ticket.close();
        }
    }

    private void setUp(SocketChannel s, AdmissionControl.Ticket ticket) {
        EndpointEngine endpoint;
        try {
            ShmConnection c = transport.acceptConnection(s);
            if (!leaveSetUp(s) || !ticket.established()) {
                c.close(); // disposed meanwhile, or evicted just as its set-up finished
                ticket.close();
                return;
            }
            endpoint = transport.attach(c, address + "?pid=" + c.peerPid, budget,
                    transport.security().authenticatesPeers());
        } catch (RuntimeException | Error e) {
            if (leaveSetUp(s)) {
                closeQuietly(s);
            }
            ticket.close();
            if (!isDisposed()) {
                warn("connection set-up on " + address + " failed", e);
            }
            return;
        }
        endpoint.onClose().subscribe(null, e -> ticket.close(), ticket::close);
        if (!offer(endpoint)) {
            endpoint.dispose();
        }
    }

    /** A newer connection needs the slot of {@code s}'s unfinished set-up: see {@link #endSetUp}. */
    private void evict(SocketChannel s) {
        synchronized (inSetUp) {
            if (inSetUp.contains(s)) {
                endSetUp(s);
            }
        }
    }

    /**
     * Ends the set-up running on {@code s}: its thread waits in a selector, which a close of the channel would not
     * wake before the deadline, while a shutdown makes the channel readable at once (end of stream); the set-up then
     * fails and closes it.
     */
    private static void endSetUp(SocketChannel s) {
        try {
            s.shutdownInput();
            s.shutdownOutput();
        } catch (IOException e) {
            closeQuietly(s); // not connected any more: nothing to wait for
        }
    }

    private boolean leaveSetUp(SocketChannel s) {
        synchronized (inSetUp) {
            return inSetUp.remove(s);
        }
    }

    private synchronized void warn(String what, Throwable e) {
        long now = System.nanoTime();
        if (now - lastWarning > 10_000_000_000L || lastWarning == 0) {
            lastWarning = now;
            log.warn(what, e);
        } else {
            log.debug(what, e);
        }
    }

    private static void closeQuietly(SocketChannel s) {
        try {
            s.close();
        } catch (IOException e) {
            // gone already
        }
    }

    @Override
    public String address() {
        return address;
    }

    @Override
    protected void stop() {
        try {
            server.close(); // ends the blocked accept
        } catch (IOException e) {
            log.debug("closing {} failed", address, e);
        }
        try {
            acceptor.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (inSetUp) {
            inSetUp.forEach(ShmListener::endSetUp); // their set-up threads fail and clean up
        }
        handshakes.shutdown();
        try {
            if (!handshakes.awaitTermination(5, TimeUnit.SECONDS)) {
                log.warn("set-ups on {} did not end within 5 s", address);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            log.debug("could not remove {}", path, e);
        }
    }
}
