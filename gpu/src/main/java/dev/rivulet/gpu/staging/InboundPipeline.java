package dev.rivulet.gpu.staging;

import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.InvalidMemoryException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.MessageTooLargeException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.gpu.CopyDirection;
import dev.rivulet.gpu.CopyEvent;
import dev.rivulet.gpu.DeviceProtocolException;
import dev.rivulet.gpu.DeviceSlice;
import dev.rivulet.gpu.DeviceTransferConfig;
import dev.rivulet.gpu.TransferAbortedException;
import dev.rivulet.gpu.TransferPath;
import dev.rivulet.gpu.metrics.GpuMetrics.Outcome;
import dev.rivulet.gpu.metrics.GpuMetrics.TransferOp;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.FluxSink;
import reactor.core.scheduler.Schedulers;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.Set;
import java.util.function.LongFunction;

/**
 * Device messages arriving on the endpoint, copied into device memory; confined to the engine's loop thread.
 *
 * <p>The pipeline owns the endpoint's {@code receive()} from the first receive on: messages are read in order as
 * header, chunks (or an abort), so one reader must see them all, whoever listens above. It asks the endpoint for at
 * most as many messages as it has credits ({@link #credits}) minus the chunks it holds; the endpoint grants the
 * sender exactly that many, so a receiver whose device copies or whose subscriber are slow stops the sender's
 * copies. Each chunk is copied to the device straight from the buffer it was received in: the pool's slabs are
 * pinned once ({@link dev.rivulet.gpu.DeviceMemory#pinRegion}), in the background the first time a slab is met,
 * so no chunk is copied twice.
 *
 * <p>A message goes to the current subscriber when it has demand: the subscriber's function names the destination
 * for the message's length. A message that arrives while nobody asks is held (its chunks too, within the credits)
 * for the next subscriber. A subscriber that cancels part way leaves its message to be read to its end and
 * dropped; copies already queued into its destination finish before the destination is let go.
 */
final class InboundPipeline {

    /** One device message being received. */
    static final class Message {
        final long length;
        final int chunkSize;
        int chunks;
        int arrived;
        /** Chunks copied, or dropped. */
        int processed;
        DeviceSlice destination;
        Receiver owner;
        boolean discard;
        Throwable failure;
        final ArrayDeque<Entry> parked = new ArrayDeque<>(0);

        Message(long length, int chunkSize) {
            this.length = length;
            this.chunkSize = chunkSize;
            this.chunks = WireFormat.chunks(length, chunkSize);
        }

        boolean complete() {
            return arrived == chunks && processed == arrived;
        }
    }

    /** A received chunk held until its copy to the device is done. */
    static final class Entry {
        final CopyEvent event;
        Buffer buffer;
        Message message;
        int chunk;
        int length;
        long copyStart;

        Entry(CopyEvent event) {
            this.event = event;
        }
    }

    /** The subscriber of one {@code receive}. */
    static final class Receiver {
        final LongFunction<DeviceSlice> destinations;
        final FluxSink<DeviceSlice> sink;
        long demand;
        int assigned;
        boolean ended;

        Receiver(LongFunction<DeviceSlice> destinations, FluxSink<DeviceSlice> sink) {
            this.destinations = destinations;
            this.sink = sink;
        }
    }

    private final StagingEngine engine;
    private final int credits;
    private final ArrayDeque<Entry> freeEntries;
    private final Entry[] entries;
    private final ArrayList<Entry> copying = new ArrayList<>();
    private final ArrayList<Entry> waitingPin = new ArrayList<>();
    private final Set<MemoryRegion> pinning = Collections.newSetFromMap(new IdentityHashMap<>());
    /** Messages not yet handed out, in arrival order (a list: walked every cycle, so without an iterator). */
    private final ArrayList<Message> messages = new ArrayList<>();
    /** The message whose chunks are arriving now (null: the next arrival is a header). */
    private Message current;
    private WireReader wire;
    private int requested;
    private boolean wireEnded;
    private Throwable wireError;
    private Receiver receiver;
    private volatile int held;
    /** Guards {@link #deliverCompleted()} against re-entry from a subscriber's signal handlers. */
    private boolean delivering;
    private boolean deliverAgain;

    InboundPipeline(StagingEngine engine, CopyEvent[] events) {
        this.engine = engine;
        this.credits = events.length;
        this.entries = new Entry[events.length];
        this.freeEntries = new ArrayDeque<>(events.length);
        for (int i = 0; i < events.length; i++) {
            entries[i] = new Entry(events[i]);
            freeEntries.push(entries[i]);
        }
    }

    /** Received chunks held now (parked, waiting for a pin, or copying). */
    int held() {
        return held;
    }

    boolean idle() {
        return copying.isEmpty() && waitingPin.isEmpty() && pinning.isEmpty() && freeEntries.size() == credits;
    }

    boolean copying() {
        return !copying.isEmpty();
    }

    // ---- subscribers (loop thread) ----

    void subscribe(Receiver r) {
        if (engine.closing) {
            r.ended = true;
            r.sink.error(engine.closedError());
            return;
        }
        if (receiver != null && !receiver.ended) {
            r.ended = true;
            r.sink.error(new InvalidRequestException("device messages have one receiver at a time"));
            return;
        }
        if (wireEnded) {
            r.ended = true;
            endReceiver(r, wireError);
            return;
        }
        receiver = r;
        if (wire == null) {
            wire = new WireReader();
            engine.endpoint.receive().subscribe(wire);
        }
        settle();
    }

    void request(Receiver r, long n) {
        if (r.ended) {
            return;
        }
        r.demand = r.demand + n < 0 ? Long.MAX_VALUE : r.demand + n;
        settle();
    }

    void cancel(Receiver r) {
        if (!r.ended) {
            endReceiverQuietly(r);
        }
    }

    /** The receiver stops: its messages still arriving are read to their end and dropped. */
    private void endReceiverQuietly(Receiver r) {
        r.ended = true;
        if (receiver == r) {
            receiver = null;
        }
        for (Message m : messages) {
            if (m.owner == r && !m.discard) {
                m.discard = true;
                dropParked(m);
            }
        }
        settle();
    }

    private void endReceiver(Receiver r, Throwable error) {
        endReceiverQuietly(r);
        if (error == null) {
            r.sink.complete();
        } else {
            r.sink.error(error);
        }
    }

    /** Assigns, delivers and asks for more: after anything that may have changed what is possible. */
    private void settle() {
        assign();
        deliverCompleted();
        topUp();
    }

    // ---- demand towards the endpoint ----

    /**
     * Asks the endpoint for what the credits allow: the rest of the current message's chunks, or, when the receiver
     * wants another message and every expected arrival is accounted for, its header and one chunk per free staging
     * entry. Asking for the chunks with the header spares each message a round trip of credits (header in, then
     * credits for its chunks out) while the sender's first copies run; a message of no more chunks than staging
     * entries then needs no credit after the first ask. The header takes no entry, and it is the first of those
     * arrivals (nothing else is expected when they are asked for), so at most one chunk per free entry can follow it.
     * A message shorter than that leaves its unused credits to the messages behind it, which are held like any
     * message nobody asks for yet: within the credits.
     */
    private void topUp() {
        if (wire == null || wire.subscription == null || wireEnded || engine.closing) {
            return;
        }
        int budget = freeEntries.size() - requested; // entries not holding a chunk nor promised to one
        if (budget <= 0) {
            return;
        }
        int remaining = current == null ? 0 : current.chunks - current.arrived;
        int n = Math.min(budget, Math.max(0, remaining - requested));
        if (n == 0 && requested == remaining && wantsAnother()) {
            n = budget + 1; // the header, then a chunk per free entry
        }
        if (n > 0) {
            requested += n;
            wire.subscription.request(n);
        }
    }

    private boolean wantsAnother() {
        Receiver r = receiver;
        if (r == null || r.ended) {
            return false;
        }
        int unassigned = 0;
        for (int i = 0; i < messages.size(); i++) {
            Message m = messages.get(i);
            if (m.owner == null && !m.discard) {
                unassigned++;
            }
        }
        return r.demand > r.assigned + unassigned;
    }

    // ---- arrivals (loop thread) ----

    void arrived(Buffer b) {
        requested--;
        if (engine.closing || wireEnded) {
            b.release();
            return;
        }
        if (current == null) {
            header(b);
        } else {
            chunk(current, b);
        }
        settle();
    }

    private void header(Buffer b) {
        Message m;
        try {
            WireFormat.checkHeader(b, 1, DeviceTransferConfig.MAX_CHUNK);
            m = new Message(WireFormat.length(b), WireFormat.chunk(b));
        } catch (DeviceProtocolException e) {
            protocolError(e);
            return;
        } finally {
            b.release();
        }
        messages.add(m);
        if (m.chunks > 0) {
            current = m;
        }
    }

    private void chunk(Message m, Buffer b) {
        int k = m.arrived;
        if (b.length() == 0) {
            b.release();
            m.chunks = m.arrived; // no more chunks of it will come
            current = null;
            if (m.failure == null) {
                m.failure = new TransferAbortedException("the sender gave up this device message after " + k + " of "
                        + WireFormat.chunks(m.length, m.chunkSize) + " chunks");
            }
            dropParked(m);
            return;
        }
        int expected = WireFormat.chunkLength(m.length, m.chunkSize, k);
        Entry e = freeEntries.poll();
        if (b.length() != expected || e == null) {
            b.release();
            protocolError(new DeviceProtocolException(e == null ? "more chunks arrived than were credited"
                    : "chunk " + k + " of a device message is " + b.length() + " bytes, expected " + expected));
            return;
        }
        held++;
        m.arrived++;
        if (m.arrived == m.chunks) {
            current = null;
        }
        e.buffer = b;
        e.message = m;
        e.chunk = k;
        e.length = expected;
        if (m.discard || m.failure != null) {
            drop(e);
        } else if (m.destination == null) {
            m.parked.addLast(e);
        } else {
            copy(e);
        }
    }

    /** Gives waiting messages, oldest first, destinations from the receiver while it has demand. */
    private void assign() {
        Receiver r = receiver;
        if (r == null || r.ended || r.demand <= r.assigned) {
            return;
        }
        for (int i = 0; i < messages.size(); i++) {
            Message m = messages.get(i);
            if (m.owner != null || m.discard) {
                continue;
            }
            if (r.demand <= r.assigned || r.ended) {
                return;
            }
            m.owner = r;
            r.assigned++;
            DeviceSlice d;
            try {
                d = r.destinations.apply(m.length);
                if (d == null) {
                    throw new InvalidRequestException("no destination for a device message of " + m.length
                            + " bytes");
                }
                if (d.length() < m.length) {
                    throw new MessageTooLargeException("device message of " + m.length
                            + " bytes does not fit its destination of " + d.length());
                }
                if (d.memory() != engine.memory) {
                    throw new InvalidMemoryException("destination is " + d.memory().kind()
                            + " memory, this pipeline copies to " + engine.memory.kind());
                }
                if (!engine.pins.tryPin(d.buffer())) {
                    throw new InvalidMemoryException("destination device buffer is closed");
                }
            } catch (RuntimeException e) {
                m.failure = e;
                dropParked(m);
                continue;
            }
            m.destination = d.slice(0, m.length);
            Entry e;
            while ((e = m.parked.pollFirst()) != null) {
                copy(e);
            }
        }
    }

    private void copy(Entry e) {
        Message m = e.message;
        if (m.discard || m.failure != null) {
            drop(e);
            return;
        }
        MemoryRegion region = e.buffer.region();
        if (!engine.memory.isPinned(region)) {
            waitingPin.add(e);
            pin(region);
            return;
        }
        e.copyStart = System.nanoTime();
        try {
            engine.toDevice.copyToDevice(e.buffer.capacitySegment(), e.length, m.destination.buffer(),
                    m.destination.offset() + (long) e.chunk * m.chunkSize, e.event);
            copying.add(e);
        } catch (RuntimeException x) {
            fail(m, x);
            drop(e);
        }
    }

    /** Pins a slab met for the first time, off the loop thread; its chunks wait meanwhile. */
    private void pin(MemoryRegion region) {
        if (!pinning.add(region)) {
            return;
        }
        Schedulers.boundedElastic().schedule(() -> {
            Throwable error = null;
            try {
                engine.memory.pinRegion(region);
            } catch (RuntimeException x) {
                error = x;
            }
            Throwable result = error;
            engine.run(() -> {
                pinned(region, result);
                settle();
            });
        });
    }

    private void pinned(MemoryRegion region, Throwable error) {
        pinning.remove(region);
        ArrayList<Entry> ready = new ArrayList<>();
        for (Iterator<Entry> it = waitingPin.iterator(); it.hasNext(); ) {
            Entry e = it.next();
            if (e.buffer.region() == region) {
                it.remove();
                ready.add(e);
            }
        }
        for (Entry e : ready) {
            if (error != null) {
                fail(e.message, error);
                drop(e);
            } else {
                copy(e);
            }
        }
    }

    private void fail(Message m, Throwable error) {
        if (m.failure == null) {
            m.failure = error;
        }
        dropParked(m);
    }

    private void dropParked(Message m) {
        Entry e;
        while ((e = m.parked.pollFirst()) != null) {
            drop(e);
        }
    }

    /** Lets a chunk go without copying it. */
    private void drop(Entry e) {
        Message m = e.message;
        e.buffer.release();
        e.buffer = null;
        e.message = null;
        freeEntries.push(e);
        held--;
        m.processed++;
    }

    // ---- the duty cycle (loop thread) ----

    int poll() {
        int work = 0;
        for (int i = copying.size() - 1; i >= 0; i--) {
            Entry e = copying.get(i);
            Throwable error = null;
            boolean complete;
            try {
                complete = e.event.isComplete();
            } catch (RuntimeException x) {
                complete = true;
                error = x;
            }
            if (!complete) {
                continue;
            }
            int last = copying.size() - 1;
            copying.set(i, copying.get(last));
            copying.remove(last);
            if (error != null) {
                fail(e.message, error);
            } else {
                engine.metrics.copied(CopyDirection.TO_DEVICE, e.length, System.nanoTime() - e.copyStart);
            }
            drop(e);
            work++;
        }
        if (work > 0) {
            settle();
        }
        return work;
    }

    /** Hands finished messages to their receivers, in arrival order. */
    private void deliverCompleted() {
        if (delivering) {
            deliverAgain = true; // a subscriber's handler re-entered: the outer call goes round once more
            return;
        }
        delivering = true;
        try {
            do {
                deliverAgain = false;
                deliverOnce();
            } while (deliverAgain);
        } finally {
            delivering = false;
        }
    }

    private void deliverOnce() {
        while (!messages.isEmpty()) {
            Message m = messages.get(0);
            if (!m.complete() || (m.owner == null && !m.discard && m.failure == null)) {
                break;
            }
            messages.remove(0);
            if (m.destination != null) {
                engine.pins.unpin(m.destination.buffer());
            }
            Receiver r = m.owner;
            if (r != null) {
                r.assigned--;
            }
            if (r == null || r.ended || m.discard) {
                engine.metrics.transferEnded(TransferOp.RECEIVE, TransferPath.STAGED, Outcome.CANCELLED, m.length);
                continue;
            }
            if (m.failure != null) {
                engine.metrics.transferEnded(TransferOp.RECEIVE, TransferPath.STAGED, Outcome.ERROR, m.length);
                endReceiver(r, m.failure);
                continue;
            }
            engine.metrics.transferEnded(TransferOp.RECEIVE, TransferPath.STAGED, Outcome.SUCCESS, m.length);
            r.demand--;
            r.sink.next(m.destination);
        }
        if (wireEnded && messages.isEmpty() && receiver != null && !receiver.ended) {
            endReceiver(receiver, wireError);
        }
    }

    // ---- the end ----

    private void protocolError(DeviceProtocolException e) {
        endWire(e);
        if (wire != null && wire.subscription != null) {
            wire.subscription.cancel();
        }
    }

    /** Receiving ends: the endpoint closed, failed, or the peer broke the protocol. */
    private void endWire(Throwable error) {
        if (wireEnded) {
            return;
        }
        wireEnded = true;
        wireError = error;
        current = null;
        TransportException cut = error instanceof TransportException te ? te
                : new ConnectionLostException("the endpoint stopped receiving", error);
        for (Message m : messages) {
            if (!m.complete()) {
                m.chunks = m.arrived;
                fail(m, error != null ? cut : new ConnectionLostException(
                        "the peer closed the endpoint in the middle of a device message"));
            }
        }
        settle();
    }

    /** Stops receiving (the engine closes): the receiver fails, held chunks go once their copies are done. */
    void close(Throwable error) {
        if (wire != null && wire.subscription != null && !wireEnded) {
            wire.subscription.cancel();
        }
        endWire(error);
        if (receiver != null && !receiver.ended) {
            endReceiver(receiver, error);
        }
        for (Message m : messages) {
            m.discard = true;
            dropParked(m);
        }
        deliverCompleted();
    }

    /** The endpoint's {@code receive()}: retains each chunk it keeps and brings it to the loop thread. */
    private final class WireReader implements CoreSubscriber<Buffer> {
        volatile Subscription subscription;

        @Override
        public void onSubscribe(Subscription s) {
            subscription = s;
            engine.run(InboundPipeline.this::topUp);
        }

        @Override
        public void onNext(Buffer b) {
            b.retain(); // lent for onNext only: this keeps it until its copy is done
            if (engine.inLoop()) {
                arrived(b); // the usual case (one polling thread): no hand-off, nothing allocated
            } else {
                engine.run(() -> arrived(b));
            }
        }

        @Override
        public void onError(Throwable t) {
            engine.run(() -> endWire(t));
        }

        @Override
        public void onComplete() {
            engine.run(() -> endWire(null));
        }
    }
}
