package dev.rivulet.rdma.verbs;

import dev.rivulet.core.loop.Waiter;
import dev.rivulet.core.sys.Descriptors;
import dev.rivulet.core.sys.Downcalls;
import dev.rivulet.core.sys.Errno;
import dev.rivulet.core.sys.ErrnoException;
import dev.rivulet.core.sys.Pollfd;
import dev.rivulet.core.sys.Timespec;
import dev.rivulet.rdma.verbs.sys.IbvCompChannel;
import dev.rivulet.rdma.verbs.sys.IbvCq;
import dev.rivulet.rdma.verbs.sys.Ibverbs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;

/**
 * How a polling thread sleeps once its idle strategy's spin phase is over: in the kernel, on one completion channel
 * that the completion queues of every connection living on the thread signal, next to an eventfd that submitters
 * write to wake it.
 *
 * <p>Sleeping without losing a completion takes three steps ({@code ibv_req_notify_cq(3)}): arm every queue
 * ({@code ibv_req_notify_cq}, one-shot), poll each queue once more (a completion that arrived before arming raises no
 * event: the wire keeps what this poll found for its next {@code poll}, and the thread does not sleep), and only then
 * wait on the channel's descriptor. Each event read afterwards ({@code ibv_get_cq_event}, non-blocking) is
 * acknowledged at once ({@code ibv_ack_cq_events}), so destroying a CQ never waits for an acknowledgement.
 * Loop thread only, but {@link #wake} (any thread).
 */
final class CompletionWaiter implements Waiter, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(CompletionWaiter.class);

    private final MemorySegment channel;
    private final int channelFd;
    private final int wakeFd;
    private final int compVector;
    private final List<VerbsWire> wires = new CopyOnWriteArrayList<>();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment fds = arena.allocate(Pollfd.LAYOUT, 2);
    private final MemorySegment timespec = arena.allocate(Timespec.LAYOUT);
    private final MemorySegment capture = Downcalls.errnoState(arena);
    private final MemorySegment eventCq = arena.allocate(ValueLayout.ADDRESS);
    private final MemorySegment eventContext = arena.allocate(ValueLayout.ADDRESS);
    private final MemorySegment wakeWord = arena.allocate(8, 8);
    private final MemorySegment drainWord = arena.allocate(8, 8);
    private final MemorySegment cqEventCapture = Ibverbs.errnoCapture(arena);

    /** @param compVector the completion vector the CQs of this thread's connections use */
    CompletionWaiter(VerbsDevice device, int compVector) {
        this.channel = Ibverbs.createCompChannel(device.context);
        this.channelFd = IbvCompChannel.fd(channel);
        this.compVector = compVector;
        try {
            this.wakeFd = WakeFd.open(channelFd);
        } catch (ErrnoException e) {
            Ibverbs.destroyCompChannel(channel);
            arena.close();
            throw new IllegalStateException("cannot set up the completion channel's wait", e);
        }
    }

    /** The channel the CQs of this thread's connections are created on. */
    MemorySegment channel() {
        return channel;
    }

    int compVector() {
        return compVector;
    }

    /** A connection now polled on this thread (its CQ was created on {@link #channel()}). */
    void add(VerbsWire wire) {
        wires.add(wire);
    }

    /** Removes a connection before its CQ is destroyed (on the loop thread, so never during {@link #await}). */
    void remove(VerbsWire wire) {
        wires.remove(wire);
    }

    @Override
    public void await(Thread loopThread, long nanos) {
        if (wires.isEmpty()) {
            LockSupport.parkNanos(this, nanos);
            return;
        }
        for (VerbsWire w : wires) {
            if (w.armAndCheck()) {
                return; // work arrived while arming: poll again instead of sleeping
            }
        }
        Pollfd.set(fds, 0, channelFd, Descriptors.POLLIN);
        Pollfd.set(fds, 1, wakeFd, Descriptors.POLLIN);
        int n = Descriptors.ppoll(fds, 2, nanos, timespec, capture);
        if (n <= 0) {
            return; // timeout or a signal: the loop polls again either way
        }
        if ((Pollfd.revents(fds, 1) & Descriptors.POLLIN) != 0) {
            WakeFd.drain(wakeFd, drainWord);
        }
        if ((Pollfd.revents(fds, 0) & Descriptors.POLLIN) != 0) {
            ackEvents();
        }
    }

    /** Reads and acknowledges every pending channel event; the CQs themselves are polled by their wires. */
    private void ackEvents() {
        for (;;) {
            int rc = Ibverbs.getCqEvent(channel, eventCq, eventContext, cqEventCapture);
            if (rc != 0) {
                if (rc != -Errno.EAGAIN) {
                    log.debug("ibv_get_cq_event = {} ({})", rc, Errno.describe(-rc));
                }
                return;
            }
            Ibverbs.ackCqEvents(IbvCq.of(eventCq.get(ValueLayout.ADDRESS, 0)), 1);
        }
    }

    @Override
    public void wake(Thread loopThread) {
        WakeFd.signal(wakeFd, wakeWord);
        LockSupport.unpark(loopThread);
    }

    /** After every connection of the thread is gone (the CQs are destroyed). */
    @Override
    public void close() {
        int rc = Ibverbs.destroyCompChannel(channel);
        if (rc != 0) {
            log.warn("ibv_destroy_comp_channel = {} ({}): a CQ still uses it", rc, Errno.describe(rc));
        }
        Descriptors.close(wakeFd);
        arena.close();
    }
}
