package dev.rivulet.rdma.verbs;

import dev.rivulet.core.error.ConnectTimeoutException;
import dev.rivulet.core.error.ConnectionRefusedException;
import dev.rivulet.core.error.ProviderException;
import dev.rivulet.core.sys.Descriptors;
import dev.rivulet.core.sys.Downcalls;
import dev.rivulet.core.sys.Errno;
import dev.rivulet.core.sys.ErrnoException;
import dev.rivulet.core.sys.Pollfd;
import dev.rivulet.core.sys.Timespec;
import dev.rivulet.rdma.verbs.sys.RdmaCmEvent;
import dev.rivulet.rdma.verbs.sys.RdmaCmId;
import dev.rivulet.rdma.verbs.sys.RdmaEventChannel;
import dev.rivulet.rdma.verbs.sys.Rdmacm;
import dev.rivulet.rdma.verbs.sys.VerbsConstants;
import dev.rivulet.rdma.verbs.sys.VerbsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Phaser;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * A transport's rdma_cm event channel and the one thread that reads it: every id of the transport (listening,
 * connecting, connected) lives on this channel, and each event is copied, acknowledged at once and handed to the
 * handler registered for its id ({@link #register}); a connection request goes to the handler of the listening id it
 * arrived on. Acknowledging before dispatch keeps {@code rdma_destroy_id}, which waits for its id's events to be
 * acknowledged, from ever waiting on a handler.
 *
 * <p>The channel's descriptor is non-blocking and the thread sleeps in {@code ppoll} next to an eventfd, so
 * {@link #close} ends it without destroying a channel a thread is blocked on. Ids are destroyed on a thread of their
 * own ({@link #destroyLater}): the kernel may take a while to tear a connected id down, never on a polling thread.
 */
final class CmEvents implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(CmEvents.class);
    private static final long POLL_NANOS = 200_000_000L;

    /** One event, copied out of librdmacm's struct before it was acknowledged. */
    record Event(int type, int status, long id, long listenId, byte[] privateData, int responderResources,
                 int initiatorDepth) {

        String describe() {
            return Rdmacm.eventStr(type) + (status == 0 ? "" : " (status " + status + ")");
        }
    }

    /**
     * Events of one id: queued for the set-up thread that waits for each step ({@link #await}), then, once the
     * connection is up, handed to the wire ({@link #forward}) with nothing lost in between.
     */
    static final class Waiter implements Consumer<Event> {
        private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
        private Consumer<Event> target;

        @Override
        public synchronized void accept(Event e) {
            if (target != null) {
                target.accept(e);
            } else {
                events.add(e);
            }
        }

        /** From now on events go to {@code to}, the ones that arrived since the last step first. */
        synchronized void forward(Consumer<Event> to) {
            Event e;
            while ((e = events.poll()) != null) {
                to.accept(e);
            }
            target = to;
        }

        /**
         * The next event, which must be {@code expected}: a rejection or an unreachable peer fails the step with
         * {@link ConnectionRefusedException}, any other event with {@link ProviderException}, both naming the event.
         *
         * @throws ConnectTimeoutException when none arrives before {@code deadline} ({@link System#nanoTime})
         */
        Event await(int expected, long deadline, String what) {
            Event e;
            try {
                e = events.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                throw new ConnectTimeoutException(what + " was interrupted");
            }
            if (e == null) {
                throw new ConnectTimeoutException(what + " did not finish in time",
                        new TimeoutException("no rdma_cm event"));
            }
            if (e.type() == expected) {
                return e;
            }
            String native_ = e.status() < 0 ? Errno.describe(-e.status()) : null;
            throw switch (e.type()) {
                case VerbsConstants.RDMA_CM_EVENT_REJECTED, VerbsConstants.RDMA_CM_EVENT_UNREACHABLE,
                     VerbsConstants.RDMA_CM_EVENT_CONNECT_ERROR -> new ConnectionRefusedException(what + " failed: "
                        + e.describe(), CompletionErrors.PROVIDER, Math.abs(e.status()), native_, null);
                default -> new ProviderException(what + " failed: " + e.describe(), CompletionErrors.PROVIDER,
                        Math.abs(e.status()), native_, null);
            };
        }
    }

    private final MemorySegment channel;
    private final int channelFd;
    private final int wakeFd;
    private final Map<Long, Consumer<Event>> handlers = new ConcurrentHashMap<>();
    private final Phaser destroys = new Phaser(1);
    private final Thread thread;
    private volatile boolean running = true;

    CmEvents(String name) {
        this.channel = Rdmacm.createEventChannel();
        this.channelFd = RdmaEventChannel.fd(channel);
        try {
            this.wakeFd = WakeFd.open(channelFd);
        } catch (ErrnoException e) {
            Rdmacm.destroyEventChannel(channel);
            throw new IllegalStateException("cannot set up the rdma_cm event channel's wait", e);
        }
        this.thread = Thread.ofPlatform().daemon().name("rivulet-verbs-cm-" + name).start(this::run);
    }

    /** A new id on this channel in the reliable-connected port space. */
    MemorySegment createId() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ValueLayout.ADDRESS);
            int rc = Rdmacm.createId(channel, out, MemorySegment.NULL, VerbsConstants.RDMA_PS_TCP);
            if (rc != 0) {
                throw new VerbsException("rdma_create_id", -rc);
            }
            return RdmaCmId.of(out.get(ValueLayout.ADDRESS, 0));
        }
    }

    /** Events of {@code id} (and connection requests arriving on it, for a listening id) go to {@code handler}. */
    void register(MemorySegment id, Consumer<Event> handler) {
        handlers.put(id.address(), handler);
    }

    void unregister(MemorySegment id) {
        handlers.remove(id.address());
    }

    /** Drops the handler and destroys {@code id} (and the QP on it, if any is left) on a thread of its own. */
    void destroyLater(MemorySegment id) {
        unregister(id);
        destroys.register();
        Thread.ofVirtual().name("rivulet-verbs-cm-destroy").start(() -> {
            try {
                int rc = Rdmacm.destroyId(id);
                if (rc != 0) {
                    log.debug("rdma_destroy_id = {} ({})", rc, Errno.describe(-rc));
                }
            } finally {
                destroys.arriveAndDeregister();
            }
        });
    }

    private void run() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment fds = a.allocate(Pollfd.LAYOUT, 2);
            MemorySegment timespec = a.allocate(Timespec.LAYOUT);
            MemorySegment capture = Downcalls.errnoState(a);
            MemorySegment eight = a.allocate(8, 8);
            MemorySegment out = a.allocate(ValueLayout.ADDRESS);
            while (running) {
                Pollfd.set(fds, 0, channelFd, Descriptors.POLLIN);
                Pollfd.set(fds, 1, wakeFd, Descriptors.POLLIN);
                int n = Descriptors.ppoll(fds, 2, POLL_NANOS, timespec, capture);
                if (n > 0 && (Pollfd.revents(fds, 1) & Descriptors.POLLIN) != 0) {
                    WakeFd.drain(wakeFd, eight);
                }
                if (n > 0 && (Pollfd.revents(fds, 0) & Descriptors.POLLIN) != 0) {
                    readAll(out);
                }
            }
        } catch (Throwable t) {
            log.error("rdma_cm event thread failed; connections of this transport get no more connection events", t);
        }
    }

    private void readAll(MemorySegment out) {
        while (running) {
            int rc = Rdmacm.getCmEvent(channel, out);
            if (rc == -Errno.EAGAIN || rc == -Errno.EINTR) {
                return;
            }
            if (rc != 0) {
                log.warn("rdma_get_cm_event = {} ({})", rc, Errno.describe(-rc));
                return;
            }
            MemorySegment ev = RdmaCmEvent.of(out.get(ValueLayout.ADDRESS, 0));
            Event e = new Event(RdmaCmEvent.event(ev), RdmaCmEvent.status(ev), RdmaCmEvent.id(ev).address(),
                    RdmaCmEvent.listenId(ev).address(), RdmaCmEvent.privateData(ev),
                    RdmaCmEvent.responderResources(ev), RdmaCmEvent.initiatorDepth(ev));
            Rdmacm.ackCmEvent(ev);
            dispatch(e);
        }
    }

    private void dispatch(Event e) {
        long target = e.type() == VerbsConstants.RDMA_CM_EVENT_CONNECT_REQUEST ? e.listenId() : e.id();
        Consumer<Event> h = handlers.get(target);
        if (h == null) {
            if (e.type() == VerbsConstants.RDMA_CM_EVENT_CONNECT_REQUEST) {
                // A request on a listener that is going away: refuse it and let go of the id it came with.
                MemorySegment id = RdmaCmId.of(MemorySegment.ofAddress(e.id()));
                Rdmacm.reject(id, MemorySegment.NULL);
                destroyLater(id);
            } else {
                log.debug("rdma_cm event {} for an id nobody watches", e.describe());
            }
            return;
        }
        try {
            h.accept(e);
        } catch (RuntimeException ex) {
            log.warn("handling rdma_cm event {} failed", e.describe(), ex);
        }
    }

    /** Stops the thread, waits (bounded) for ids being destroyed, then destroys the channel. */
    @Override
    public void close() {
        running = false;
        try (Arena a = Arena.ofConfined()) {
            WakeFd.signal(wakeFd, a.allocate(8, 8));
        }
        try {
            thread.join(2_000);
            destroys.awaitAdvanceInterruptibly(destroys.arrive(), 5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (TimeoutException e) {
            log.warn("rdma_cm ids were still being destroyed after 5 s; leaving the event channel open");
            Descriptors.close(wakeFd);
            return;
        }
        Descriptors.close(wakeFd);
        if (thread.isAlive()) {
            log.warn("rdma_cm event thread did not stop; leaving the event channel open");
            return;
        }
        Rdmacm.destroyEventChannel(channel);
    }
}
