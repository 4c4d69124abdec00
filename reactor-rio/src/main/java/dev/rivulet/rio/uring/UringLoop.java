package dev.rivulet.rio.uring;

import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_OP_SEND_ZC;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_SETUP_DEFER_TASKRUN;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_SETUP_SINGLE_ISSUER;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_SETUP_SUBMIT_ALL;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_SETUP_TASKRUN_FLAG;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_SQ_CQ_OVERFLOW;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_SQ_TASKRUN;

import dev.rivulet.core.loop.LoopFaults;
import dev.rivulet.core.loop.Pollable;
import dev.rivulet.core.loop.ProgressLoop;
import dev.rivulet.core.loop.Waiter;
import dev.rivulet.core.sys.Descriptors;
import dev.rivulet.core.sys.ErrnoException;
import dev.rivulet.rio.uring.sys.CqeHandler;
import dev.rivulet.rio.uring.sys.IoUring;
import dev.rivulet.rio.uring.sys.IoUringSqe;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The io_uring of one progress loop: created on the loop thread (the ring is {@code SINGLE_ISSUER}), polled as one of
 * the loop's {@link Pollable}s, and the loop's {@link Waiter}: an idle loop sleeps inside {@code io_uring_enter}
 * with a timeout, so a completion ends the sleep, and other threads wake it through an eventfd that always has a
 * read posted in the ring.
 *
 * <p>user_data = {@code channel id << 32 | token}; id 0 is the eventfd read. Fixed buffers live in a sparse table,
 * two slots per channel (staging and receive), filled and emptied as connections come and go; a channel that finds
 * no slot (or a kernel without sparse tables) uses unregistered memory with plain SEND and RECV.
 */
final class UringLoop implements Pollable, Waiter {

    private static final Logger log = LoggerFactory.getLogger(UringLoop.class);
    private static final long EVENTFD_USER_DATA = 0;

    private final ProgressLoop loop;
    private final IoUring ring;
    private final Arena arena = Arena.ofShared();
    private final int eventFd;
    private final MemorySegment eventRead;
    private final MemorySegment one;
    private final ChannelTable<UringChannel> channels = new ChannelTable<>();
    private final ArrayDeque<Integer> freeSlots = new ArrayDeque<>();
    /** Smallest send that goes out with SEND_ZC; {@code Long.MAX_VALUE} when the kernel lacks it or it is off. */
    private final long zeroCopyFrom;
    /** Bound once: a method reference made in {@link #poll} would be a new object every cycle. */
    private final CqeHandler dispatcher = this::dispatch;
    private final LoopFaults faults;
    private boolean eventReadPosted;
    private volatile boolean closed;

    /** Must run on {@code loop}'s thread. */
    UringLoop(ProgressLoop loop, int entries, int fixedSlots, boolean wantZeroCopy, int zeroCopyMinBytes,
              boolean deferTaskrun) {
        this.loop = loop;
        this.faults = new LoopFaults(log, loop.name());
        // DEFER_TASKRUN: socket completions become task work that runs when this thread enters the ring with
        // GETEVENTS, announced by IORING_SQ_TASKRUN (TASKRUN_FLAG), which poll() checks on every cycle, so a busy
        // loop enters only when there is something to finish. Without it, the kernel interrupts the thread to post
        // each completion. Both need SINGLE_ISSUER, which holds: only this thread submits.
        int optional = IORING_SETUP_SUBMIT_ALL
                | (deferTaskrun ? IORING_SETUP_TASKRUN_FLAG | IORING_SETUP_DEFER_TASKRUN : 0);
        this.ring = IoUring.open(entries, entries * 4, IORING_SETUP_SINGLE_ISSUER, optional);
        boolean zc = false;
        try {
            zc = wantZeroCopy && ring.probe().isSupported(IORING_OP_SEND_ZC);
        } catch (ErrnoException e) {
            log.debug("io_uring probe failed; no zero-copy sends", e);
        }
        this.zeroCopyFrom = zc ? zeroCopyMinBytes : Long.MAX_VALUE;
        int slots = 0;
        if (fixedSlots > 0) {
            try {
                ring.registerBuffersSparse(fixedSlots);
                slots = fixedSlots;
            } catch (ErrnoException e) {
                log.info("no sparse fixed-buffer table ({}); connections use unregistered buffers", e.getMessage());
            }
        }
        for (int i = 0; i < slots; i++) {
            freeSlots.addLast(i);
        }
        this.eventFd = Descriptors.eventfd(0, Descriptors.EFD_CLOEXEC);
        this.eventRead = arena.allocate(ValueLayout.JAVA_LONG);
        this.one = arena.allocateFrom(ValueLayout.JAVA_LONG, 1L);
        postEventRead();
    }

    /**
     * Whether a send of {@code bytes} should use SEND_ZC. Below the threshold the page pinning and the extra
     * notification completion per send cost more than the copy they save (io_uring_prep_send_zc(3): zero copy pays
     * for larger payloads), and a small message, a ping-pong reply, waits for nothing but its own copy.
     */
    boolean zeroCopy(long bytes) {
        return bytes >= zeroCopyFrom;
    }

    ProgressLoop loop() {
        return loop;
    }

    /** Attaches a channel and gives it its id; loop thread. */
    int add(UringChannel c) {
        return channels.add(c);
    }

    void remove(int id) {
        channels.remove(id);
    }

    /** A free fixed-buffer slot filled with {@code buffer}, or -1. */
    int registerFixed(MemorySegment buffer) {
        Integer slot = freeSlots.pollFirst();
        if (slot == null) {
            return -1;
        }
        try {
            ring.updateBuffer(slot, buffer);
            return slot;
        } catch (ErrnoException e) {
            log.debug("registering a fixed buffer failed: {}", e.getMessage());
            freeSlots.addFirst(slot);
            return -1;
        }
    }

    void unregisterFixed(int slot) {
        if (slot < 0 || closed) {
            return;
        }
        try {
            ring.updateBuffer(slot, MemorySegment.NULL);
            freeSlots.addLast(slot);
        } catch (ErrnoException e) {
            log.debug("emptying fixed-buffer slot {} failed: {}", slot, e.getMessage());
        }
    }

    /** A free SQE, submitting what is queued to make room; null when the ring is still full. */
    IoUringSqe sqe() {
        IoUringSqe s = ring.nextSqe();
        if (s == null) {
            submit();
            s = ring.nextSqe();
        }
        return s;
    }

    private void submit() {
        try {
            ring.submit();
        } catch (ErrnoException e) {
            if (!e.isRetryable()) {
                log.warn("io_uring submit failed", e);
            }
        }
    }

    private void postEventRead() {
        IoUringSqe s = sqe();
        if (s != null) {
            s.prepRead(eventFd, eventRead, 0).userData(EVENTFD_USER_DATA);
            eventReadPosted = true;
        }
    }

    // ---- Pollable ----

    @Override
    public int poll() {
        if (closed) {
            return 0;
        }
        // What the endpoints and the completions of the previous cycle posted goes in now, in one system call with
        // the task work the kernel flagged (deferred task work runs only when this thread enters with GETEVENTS).
        // Submitting here rather than right after the completions puts a receive re-posted for the next message
        // and the reply sent to this one into the same io_uring_enter.
        if ((ring.sqRingFlags() & (IORING_SQ_CQ_OVERFLOW | IORING_SQ_TASKRUN)) != 0) {
            enter(0, -1); // GETEVENTS with nothing to wait for: runs the task work and returns (no timeout argument)
        } else {
            submit();
        }
        int n = ring.forEachCompletion(dispatcher);
        if (!eventReadPosted) {
            postEventRead();
        }
        return n;
    }

    private void dispatch(long userData, int res, int flags) {
        int id = (int) (userData >>> 32);
        if (id == 0) {
            eventReadPosted = false;
            postEventRead();
            return;
        }
        UringChannel c = channels.get(id);
        if (c != null) {
            try {
                c.onCompletion((int) userData, res, flags);
            } catch (Throwable t) {
                // The CQE is consumed all the same (forEachCompletion advances the head past it) and the others go on
                // to their channels; the channel whose handler threw is reset, so that what it has posted completes
                // at once and its wire ends the connection and releases it.
                faults.report("a completion handler failed", t);
                c.abort();
            }
        }
    }

    // ---- Waiter ----

    @Override
    public void await(Thread loopThread, long nanos) {
        if (closed) {
            return;
        }
        enter(1, nanos);
    }

    private void enter(int min, long nanos) {
        try {
            ring.submitAndWait(min, nanos);
        } catch (ErrnoException e) {
            if (!e.isRetryable()) {
                log.warn("io_uring_enter failed", e);
            }
        }
    }

    @Override
    public void wake(Thread loopThread) {
        if (closed) {
            return;
        }
        try {
            Descriptors.eventfdWrite(eventFd, one);
        } catch (ErrnoException e) {
            log.debug("eventfd write failed", e);
        }
    }

    /**
     * Closes every channel's socket and the ring. Runs after the loop thread stopped (transport dispose), so no
     * thread is inside {@code io_uring_enter}; the kernel cancels whatever was still posted.
     */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        loop.waiter(Waiter.PARK);
        List<UringChannel> left = channels.removeAll();
        for (UringChannel c : left) {
            c.abandon();
        }
        ring.close();
        Descriptors.closeOrThrow(eventFd);
        // Only after the ring is gone has the kernel dropped its references to the channels' buffers.
        for (UringChannel c : left) {
            c.freeMemory();
        }
        arena.close();
    }
}
