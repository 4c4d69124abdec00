package dev.rivulet.gpu.staging;

import dev.rivulet.core.error.InvalidMemoryException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.gpu.CopyDirection;
import dev.rivulet.gpu.DeviceSlice;
import dev.rivulet.gpu.TransferPath;
import dev.rivulet.gpu.metrics.GpuMetrics;
import dev.rivulet.gpu.metrics.GpuMetrics.Outcome;
import dev.rivulet.gpu.metrics.GpuMetrics.TransferOp;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.MonoSink;

import java.util.ArrayDeque;
import java.util.ArrayList;

/**
 * Sends, puts and gets of device memory through the staging slots, confined to the engine's loop thread.
 *
 * <p>A transfer is cut into chunks. Free slots go to the oldest transfer that still has chunks to start, so the
 * slots are the credit pool: with all of them waiting for the network (a receiver that grants no credit, a slow
 * target) no further device copy starts. Per chunk:
 * <ul>
 *   <li>send: device → slot (copy stream), then the slot's buffer is pushed into the message's {@link ChunkStream}
 *       once the copy's event is seen; the slot is free when the send has dropped its reference;</li>
 *   <li>put: device → slot, then a put of the slot to the chunk's window of the target;</li>
 *   <li>get: a get of the chunk's window into the slot, then slot → device.</li>
 * </ul>
 * Device-to-host copies complete in queue order (one stream), and are taken in that order, so the chunks of a
 * message reach the endpoint in order and the messages of several sends never interleave.
 *
 * <p>A transfer ends only when it holds no slot any more, whatever ended it: success, a failed copy or network
 * operation (which fails that transfer alone), or cancellation (which starts no further chunk and waits for those in
 * flight). A message given up after its header went out is closed with an empty message, which the receiver reads
 * as "aborted".
 */
final class OutboundPipeline {

    /** One send, put or get. */
    abstract static class Transfer {
        final TransferOp op;
        final DeviceSlice device;
        final long length;
        final int chunkSize;
        final int chunks;
        final MonoSink<Void> sink;
        /** Chunks given a slot so far. */
        int issued;
        /** Slots this transfer holds now. */
        int held;
        /** Chunks whose last step succeeded. */
        int done;
        boolean cancelled;
        Throwable failure;
        boolean ended;
        boolean pinned;

        Transfer(TransferOp op, DeviceSlice device, int chunkSize, MonoSink<Void> sink) {
            this.op = op;
            this.device = device;
            this.length = device.length();
            this.chunkSize = chunkSize;
            this.chunks = WireFormat.chunks(length, chunkSize);
            this.sink = sink;
        }

        boolean wantsSlot() {
            return !cancelled && failure == null && issued < chunks;
        }

        /** An empty message: it needs no slot, only its turn in the copy queue. */
        boolean wantsTurn() {
            return false;
        }

        long offset(int chunk) {
            return (long) chunk * chunkSize;
        }
    }

    static final class Send extends Transfer {
        ChunkStream stream;
        StreamEnd end;
        /** The endpoint's send of the stream has terminated (all its items completed, or it failed). */
        boolean streamEnded;
        Throwable streamError;
        int emitted;
        boolean abortPending;
        boolean queued;
        /** The header, written and waiting for the endpoint's first demand on the stream; null once pushed. */
        Buffer header;

        Send(DeviceSlice device, int chunkSize, MonoSink<Void> sink) {
            super(TransferOp.SEND, device, chunkSize, sink);
        }

        @Override
        boolean wantsTurn() {
            return chunks == 0 && !queued && !cancelled && failure == null;
        }
    }

    static final class Put extends Transfer {
        final RemoteMemory remote;

        Put(DeviceSlice device, RemoteMemory remote, int chunkSize, MonoSink<Void> sink) {
            super(TransferOp.PUT, device, chunkSize, sink);
            this.remote = remote;
        }
    }

    static final class Get extends Transfer {
        final RemoteMemory remote;

        Get(RemoteMemory remote, DeviceSlice device, int chunkSize, MonoSink<Void> sink) {
            super(TransferOp.GET, device, chunkSize, sink);
            this.remote = remote;
        }
    }

    private final StagingEngine engine;
    private final Slot[] slots;
    private final ArrayDeque<Slot> free;
    /** Device-to-host copies in queue order; an empty {@link Send} stands for its header-only message. */
    private final ArrayDeque<Object> toHost = new ArrayDeque<>();
    private final ArrayList<Slot> emitted = new ArrayList<>();
    private final ArrayList<Slot> toDevice = new ArrayList<>();
    /** Transfers under way, oldest first (a list: walked every cycle, so without an iterator). */
    private final ArrayList<Transfer> transfers = new ArrayList<>();
    /** Messages to be closed with an abort, in order; nothing else is pushed while one waits. */
    private final ArrayDeque<Send> aborts = new ArrayDeque<>();
    /**
     * The message whose streaming send started last, until that send ended (null then). The next message's send
     * starts only once this one's has ended: the endpoint keeps the order of what it posts, but items of one
     * streaming send it has not posted yet (waiting for credits or ring space) could otherwise be overtaken by the
     * next send's.
     */
    private Send lastStream;
    private volatile int inUse;
    /** Slots whose chunk the network holds now (a message being sent, a put or get in flight). */
    private volatile int inNetwork;

    OutboundPipeline(StagingEngine engine, Slot[] slots) {
        this.engine = engine;
        this.slots = slots;
        this.free = new ArrayDeque<>(slots.length);
        for (Slot s : slots) {
            s.step = new NetworkStep(s);
            free.push(s);
        }
    }

    int inUse() {
        return inUse;
    }

    int inNetwork() {
        return inNetwork;
    }

    /** Moves {@code s} to {@code state}, keeping {@link #inNetwork} in step. */
    private void state(Slot s, int state) {
        boolean was = s.state == Slot.EMITTED || s.state == Slot.NETWORK;
        boolean is = state == Slot.EMITTED || state == Slot.NETWORK;
        s.state = state;
        if (was != is) {
            inNetwork += is ? 1 : -1;
        }
    }

    int capacity() {
        return slots.length;
    }

    boolean idle() {
        return transfers.isEmpty() && free.size() == slots.length;
    }

    // ---- starting and stopping transfers (loop thread) ----

    void start(Transfer t) {
        if (engine.closing) {
            t.ended = true;
            t.sink.error(engine.closedError());
            return;
        }
        if (t instanceof Put p && p.remote.length() < t.length) {
            t.ended = true;
            t.sink.error(new InvalidRequestException("put of " + t.length + " bytes into a remote window of "
                    + p.remote.length()));
            return;
        }
        if (t instanceof Get g && g.remote.length() < t.length) {
            t.ended = true;
            t.sink.error(new InvalidRequestException("get of " + t.length + " bytes from a remote window of "
                    + g.remote.length()));
            return;
        }
        if (!engine.pins.tryPin(t.device.buffer())) {
            t.ended = true;
            t.sink.error(new InvalidMemoryException("device buffer is closed"));
            return;
        }
        t.pinned = true;
        transfers.add(t);
        maybeEnd(t);
    }

    void cancel(Transfer t) {
        if (!t.ended && !t.cancelled) {
            t.cancelled = true;
            abandon(t);
        }
    }

    private void fail(Transfer t, Throwable error) {
        if (t.failure == null && !t.cancelled) {
            t.failure = error;
        }
        abandon(t);
    }

    /** A transfer starts no further chunk; a message whose header went out is closed with an abort. */
    private void abandon(Transfer t) {
        if (t instanceof Send s && s.stream != null && !s.stream.isCompleted() && !s.stream.gone()
                && !s.abortPending) {
            s.abortPending = true;
            aborts.addLast(s);
            pushAborts();
        }
        maybeEnd(t);
    }

    /**
     * Fails every transfer (the engine is closing). Messages still being sent are cut where they stand: their
     * streaming sends are cancelled, which drops what the endpoint has not posted yet (waiting for credits that may
     * never come) and lets what it posted finish. No abort follows them, so a peer in the middle of one of those
     * messages waits until the endpoint closes.
     */
    void abandonAll(Throwable error) {
        for (Transfer t : new ArrayList<>(transfers)) {
            if (t instanceof Send s && s.end != null && !s.streamEnded) {
                s.end.cancel();
                streamEnded(s); // a cancelled streaming send signals nothing more
                if (s.abortPending) {
                    s.abortPending = false;
                    aborts.remove(s);
                }
            }
            fail(t, error);
        }
    }

    private void maybeEnd(Transfer t) {
        if (t.ended || t.held > 0) {
            return;
        }
        boolean stopped = t.cancelled || t.failure != null;
        if (t instanceof Send s) {
            if (s.abortPending) {
                return;
            }
            if (s.stream != null) {
                if (!s.streamEnded) {
                    return;
                }
            } else if (!stopped && !(s.chunks == 0 && s.streamEnded)) {
                return;
            }
            if (s.streamError != null && t.failure == null && !t.cancelled) {
                t.failure = s.streamError;
            }
        } else if (!stopped && t.done < t.chunks) {
            return;
        }
        t.ended = true;
        if (t instanceof Send s) {
            dropHeader(s);
        }
        transfers.remove(t);
        toHost.remove(t);
        if (t.pinned) {
            engine.pins.unpin(t.device.buffer());
        }
        GpuMetrics m = engine.metrics;
        if (t.cancelled) {
            m.transferEnded(t.op, TransferPath.STAGED, Outcome.CANCELLED, t.length);
        } else if (t.failure != null) {
            m.transferEnded(t.op, TransferPath.STAGED, Outcome.ERROR, t.length);
            t.sink.error(t.failure);
        } else {
            m.transferEnded(t.op, TransferPath.STAGED, Outcome.SUCCESS, t.length);
            t.sink.success();
        }
    }

    // ---- the duty cycle (loop thread) ----

    int poll() {
        int work = 0;
        if (!aborts.isEmpty()) {
            work += pushAborts();
        }
        work += reapEmitted();
        work += reapToDevice();
        // Copies are queued first, so that a message's header goes out in the cycle its first copy was queued in.
        work += schedule();
        if (aborts.isEmpty()) {
            work += takeToHost();
        }
        return work;
    }

    /** Whether copies are queued whose ends only polling will see. */
    boolean copying() {
        return !toHost.isEmpty() || !toDevice.isEmpty();
    }

    /**
     * Gives free slots to the oldest transfers with chunks left. A later send gets its first slot only once every
     * earlier one has all of its chunks queued, so messages never interleave; an empty message takes its turn in the
     * copy queue the same way, without a slot.
     */
    private int schedule() {
        int work = 0;
        while (!engine.closing) {
            Transfer t = nextWanting();
            if (t == null) {
                break;
            }
            if (t.wantsTurn()) {
                ((Send) t).queued = true;
                toHost.addLast(t); // header only, in order behind the chunks queued before it
                work++;
                continue;
            }
            if (free.isEmpty()) {
                break;
            }
            Slot s = free.pop();
            inUse++;
            engine.metrics.stagingInUseDelta(1);
            int k = t.issued++;
            t.held++;
            s.transfer = t;
            s.chunk = k;
            s.length = WireFormat.chunkLength(t.length, t.chunkSize, k);
            if (t instanceof Get g) {
                state(s, Slot.NETWORK);
                engine.endpoint.get(g.remote.slice(t.offset(k), s.length), s.local())
                        .subscribe(s.step);
            } else {
                state(s, Slot.TO_HOST);
                s.copyStart = System.nanoTime();
                try {
                    engine.toHost.copyToHost(t.device.buffer(), t.device.offset() + t.offset(k), s.host, s.length,
                            s.toHostEvent);
                    toHost.addLast(s);
                } catch (RuntimeException e) {
                    fail(t, e);
                    release(s);
                }
            }
            work++;
        }
        return work;
    }

    private Transfer nextWanting() {
        for (int i = 0; i < transfers.size(); i++) {
            Transfer t = transfers.get(i);
            if (t.wantsSlot() || t.wantsTurn()) {
                return t;
            }
        }
        return null;
    }

    /**
     * Takes finished device-to-host copies in queue order and hands each chunk to the network. A message's header
     * goes out as soon as its first chunk heads the queue, while that chunk still copies: the receiver then asks for
     * the chunks while the copy runs, rather than after it.
     */
    private int takeToHost() {
        int work = 0;
        Object head;
        while ((head = toHost.peekFirst()) != null) {
            if (head instanceof Send empty) {
                if (!pushHeader(empty)) {
                    break;
                }
                // Off the queue before its stream completes: where the header's send completed already (a wire
                // that writes small messages at once, as shm:// does), completing the stream ends the transfer
                // here and now, and its end takes it out of the queue too; polling after that would drop the next
                // message's chunk instead.
                toHost.pollFirst();
                empty.stream.complete();
                work++;
                continue;
            }
            Slot s = (Slot) head;
            if (s.transfer instanceof Send send && !send.cancelled && send.failure == null && !pushHeader(send)) {
                break; // the header cannot go yet (no demand, no buffer, the previous message): next cycle, in order
            }
            Throwable error = null;
            boolean complete;
            try {
                complete = s.toHostEvent.isComplete();
            } catch (RuntimeException e) {
                complete = true;
                error = e;
            }
            if (!complete) {
                break;
            }
            Transfer t = s.transfer;
            if (error != null) {
                toHost.pollFirst();
                fail(t, error);
                release(s);
                work++;
                if (!aborts.isEmpty()) {
                    break; // the abort goes out before anything queued behind it
                }
                continue;
            }
            if (t.cancelled || t.failure != null) {
                toHost.pollFirst();
                engine.metrics.copied(CopyDirection.TO_HOST, s.length, System.nanoTime() - s.copyStart);
                release(s);
                work++;
                continue;
            }
            if (t instanceof Send send) {
                if (!pushChunk(send, s)) {
                    break; // no header buffer or no demand yet: the next cycle tries again, in order
                }
            } else {
                state(s, Slot.NETWORK);
                Put p = (Put) t;
                engine.endpoint.put(s.local(), p.remote.slice(t.offset(s.chunk), s.length))
                        .subscribe(s.step);
            }
            toHost.pollFirst();
            engine.metrics.copied(CopyDirection.TO_HOST, s.length, System.nanoTime() - s.copyStart);
            work++;
        }
        return work;
    }

    /**
     * Starts the message of {@code s}: its streaming send, and the header as its first item once the endpoint asks
     * for items (it may ask later, from its own thread). False while the header cannot go yet.
     */
    private boolean pushHeader(Send s) {
        if (s.stream == null) {
            if (lastStream != null) {
                return false; // the previous message is not all posted yet: its StreamEnd brings the loop back
            }
            Buffer header = engine.endpoint.memory().buffers().tryAllocate(WireFormat.HEADER_BYTES);
            if (header == null) {
                return false;
            }
            WireFormat.writeHeader(header, s.length, s.chunkSize);
            s.header = header;
            s.stream = new ChunkStream(engine::wake);
            s.end = new StreamEnd(s);
            lastStream = s;
            engine.endpoint.send(s.stream).subscribe(s.end);
        }
        if (s.header != null) {
            if (s.stream.gone()) {
                dropHeader(s); // the endpoint refused the send: StreamEnd has the reason
                return true;
            }
            if (!s.stream.ready()) {
                return false; // no demand yet: its arrival wakes the loop
            }
            Buffer header = s.header;
            s.header = null;
            s.stream.emit(header);
        }
        return true;
    }

    /** Lets go of a header that never went out. */
    private static void dropHeader(Send s) {
        if (s.header != null) {
            s.header.release();
            s.header = null;
        }
    }

    private boolean pushChunk(Send t, Slot s) {
        if (!pushHeader(t)) {
            return false;
        }
        ChunkStream stream = t.stream;
        if (stream.gone()) {
            release(s); // the send failed: StreamEnd ends the transfer with its error
            return true;
        }
        if (!stream.ready()) {
            return false;
        }
        s.buffer.length(s.length);
        s.buffer.retain();
        state(s, Slot.EMITTED);
        emitted.add(s);
        stream.emit(s.buffer);
        if (++t.emitted == t.chunks) {
            stream.complete();
        }
        return true;
    }

    /** Closes given-up messages with an empty message, in order. */
    private int pushAborts() {
        int work = 0;
        Send s;
        while ((s = aborts.peekFirst()) != null) {
            if (s.header != null) {
                dropHeader(s); // the peer never saw this message: nothing to abort
                s.stream.complete();
            } else if (!s.stream.isCompleted() && !s.stream.gone()) {
                if (!s.stream.ready()) {
                    break;
                }
                Buffer abort = engine.endpoint.memory().buffers().tryAllocate(0);
                if (abort == null) {
                    break;
                }
                s.stream.emit(abort);
                s.stream.complete();
            }
            aborts.pollFirst();
            s.abortPending = false;
            maybeEnd(s);
            work++;
        }
        return work;
    }

    /** Slots whose message the endpoint is done with (its reference dropped) are free again. */
    private int reapEmitted() {
        int work = 0;
        for (int i = emitted.size() - 1; i >= 0; i--) {
            Slot s = emitted.get(i);
            if (s.buffer.refCnt() == 1) {
                int last = emitted.size() - 1;
                emitted.set(i, emitted.get(last));
                emitted.remove(last);
                s.transfer.done++;
                release(s);
                work++;
            }
        }
        return work;
    }

    private int reapToDevice() {
        int work = 0;
        for (int i = toDevice.size() - 1; i >= 0; i--) {
            Slot s = toDevice.get(i);
            Throwable error = null;
            boolean complete;
            try {
                complete = s.toDeviceEvent.isComplete();
            } catch (RuntimeException e) {
                complete = true;
                error = e;
            }
            if (!complete) {
                continue;
            }
            int last = toDevice.size() - 1;
            toDevice.set(i, toDevice.get(last));
            toDevice.remove(last);
            Transfer t = s.transfer;
            if (error != null) {
                fail(t, error);
            } else {
                engine.metrics.copied(CopyDirection.TO_DEVICE, s.length, System.nanoTime() - s.copyStart);
                t.done++;
            }
            release(s);
            work++;
        }
        return work;
    }

    /** A put or get of slot {@code s} ended (loop thread). */
    private void networkDone(Slot s, Throwable error) {
        Transfer t = s.transfer;
        if (error != null) {
            fail(t, error);
            release(s);
            return;
        }
        if (t instanceof Get && !t.cancelled && t.failure == null) {
            state(s, Slot.TO_DEVICE);
            s.copyStart = System.nanoTime();
            try {
                engine.toDevice.copyToDevice(s.host, s.length, t.device.buffer(), t.device.offset()
                        + t.offset(s.chunk), s.toDeviceEvent);
                toDevice.add(s);
            } catch (RuntimeException e) {
                fail(t, e);
                release(s);
            }
            return;
        }
        if (!(t instanceof Get)) {
            t.done++;
        }
        release(s);
    }

    private void release(Slot s) {
        Transfer t = s.transfer;
        s.transfer = null;
        state(s, Slot.FREE);
        free.push(s);
        inUse--;
        engine.metrics.stagingInUseDelta(-1);
        t.held--;
        maybeEnd(t);
    }

    // ---- signals from the endpoint, brought to the loop thread ----

    /**
     * The end of one chunk's put or get: one per slot, subscribed to each operation the slot's chunk goes through
     * (a slot starts its next operation only after this one's end was handled), so no object is made per chunk.
     */
    final class NetworkStep implements CoreSubscriber<Void>, Runnable {
        private final Slot slot;
        /** The operation's error, written before the hand-over to the loop and read there. */
        private Throwable error;

        NetworkStep(Slot slot) {
            this.slot = slot;
        }

        @Override
        public void onSubscribe(Subscription s) {
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(Void v) {
        }

        @Override
        public void onError(Throwable e) {
            error = e;
            engine.run(this);
        }

        @Override
        public void onComplete() {
            engine.run(this);
        }

        /** On the loop thread. */
        @Override
        public void run() {
            Throwable e = error;
            error = null;
            networkDone(slot, e);
        }
    }

    /** The streaming send of {@code s} has terminated: the next message's may start. */
    private void streamEnded(Send s) {
        s.streamEnded = true;
        if (lastStream == s) {
            lastStream = null;
        }
    }

    /** The end of a message's streaming send. */
    private final class StreamEnd implements CoreSubscriber<Void> {
        private final Send send;
        private volatile Subscription subscription;

        StreamEnd(Send send) {
            this.send = send;
        }

        @Override
        public void onSubscribe(Subscription s) {
            subscription = s;
            s.request(Long.MAX_VALUE);
        }

        void cancel() {
            Subscription s = subscription;
            if (s != null) {
                s.cancel();
            }
        }

        @Override
        public void onNext(Void v) {
        }

        @Override
        public void onError(Throwable e) {
            engine.run(() -> {
                streamEnded(send);
                send.streamError = e;
                if (send.abortPending) { // nothing more can be sent on it
                    send.abortPending = false;
                    aborts.remove(send);
                }
                abandon(send);
            });
        }

        @Override
        public void onComplete() {
            engine.run(() -> {
                streamEnded(send);
                maybeEnd(send);
            });
        }
    }
}
