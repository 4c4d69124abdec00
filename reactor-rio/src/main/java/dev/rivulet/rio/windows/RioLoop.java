package dev.rivulet.rio.windows;

import dev.rivulet.core.loop.LoopFaults;
import dev.rivulet.core.loop.Pollable;
import dev.rivulet.core.loop.Waiter;
import dev.rivulet.rio.windows.sys.RioFunctions;
import dev.rivulet.rio.windows.sys.RioNotificationCompletion;
import dev.rivulet.rio.windows.sys.RioResult;
import dev.rivulet.rio.windows.sys.Ws2_32;

import org.slf4j.LoggerFactory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;

/**
 * The Registered I/O completion queue of one progress loop (the counterpart of the io_uring {@code UringLoop}):
 * polled with {@code RIODequeueCompletion}, and the loop's {@link Waiter}: the park phase arms {@code RIONotify}
 * and waits on the CQ's event with a timeout; other threads wake it with {@code SetEvent} on the same event.
 * Completions carry the channel id as socket context and the wire's token as request context.
 *
 * <p>Compiled and reviewed against the documented API, not yet run on Windows (see docs/rio.md).
 */
final class RioLoop implements Pollable, Waiter {

    private static final int RESULTS = 256;

    private final Ws2_32 ws;
    private final RioFunctions rio;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment event;
    private final MemorySegment cq;
    private final MemorySegment results;
    private final Map<Integer, RioChannel> channels = new HashMap<>();
    private final LoopFaults faults;
    private int nextId = 1;
    private boolean armed;

    RioLoop(Ws2_32 ws, RioFunctions rio, int queueSize, String loopName) {
        this.faults = new LoopFaults(LoggerFactory.getLogger(RioLoop.class), loopName);
        this.ws = ws;
        this.rio = rio;
        this.event = ws.createEvent();
        MemorySegment notification = arena.allocate(RioNotificationCompletion.LAYOUT);
        RioNotificationCompletion.setEvent(notification, event, true);
        this.cq = rio.createCompletionQueue(queueSize, notification);
        this.results = arena.allocate(RioResult.LAYOUT, RESULTS);
    }

    RioFunctions rio() {
        return rio;
    }

    Ws2_32 ws() {
        return ws;
    }

    MemorySegment completionQueue() {
        return cq;
    }

    int add(RioChannel c) {
        int id = nextId++;
        channels.put(id, c);
        return id;
    }

    void remove(int id) {
        channels.remove(id);
    }

    @Override
    public int poll() {
        int total = 0;
        int n;
        while ((n = rio.dequeueCompletion(cq, results, RESULTS)) > 0) {
            total += n;
            for (int i = 0; i < n; i++) {
                RioChannel c = channels.get((int) RioResult.socketContext(results, i));
                if (c == null) {
                    continue;
                }
                int status = RioResult.status(results, i);
                int result = status == 0 ? RioResult.bytesTransferred(results, i) : -status;
                try {
                    c.onCompletion((int) RioResult.requestContext(results, i), result);
                } catch (Throwable t) {
                    // As UringLoop: the other completions of the batch still go to their channels, and the channel
                    // whose handler threw is shut down so that what it posted completes and its wire ends it.
                    faults.report("a completion handler failed", t);
                    c.abort();
                }
            }
        }
        return total;
    }

    @Override
    public void await(Thread loopThread, long nanos) {
        if (!armed) {
            rio.rioNotify(cq); // arms one signal of the event for the next completion
            armed = true;
        }
        int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, nanos / 1_000_000));
        if (ws.waitForSingleObject(event, millis) == 0) {
            armed = false; // the notification fired; RIONotify must be called again
        }
    }

    @Override
    public void wake(Thread loopThread) {
        ws.setEvent(event);
    }

    void close() {
        rio.closeCompletionQueue(cq);
        ws.closeEvent(event);
        arena.close();
    }
}
