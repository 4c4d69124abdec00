package dev.rivulet.core.engine;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.rivulet.core.Capabilities;
import dev.rivulet.core.Completion;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Operation;
import dev.rivulet.core.Ordering;
import dev.rivulet.core.credit.BatchFraming;
import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.Buffer;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Mono;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The credit protocol against a peer whose every control word and payload the fuzzer chooses: granted credits
 * (piggybacked or standalone, up to the 32-bit maximum), messages with and without credit, coalesced frames well
 * formed or not, reserved bits set, unknown types, a close in the middle, while the application requests, cancels
 * and sends at the same time. The engine under test is the real one on a real polling thread; only the wire below
 * it is the fuzzer's.
 *
 * <p>What must hold for every input: the engine never sends more messages than the peer granted credits for; a
 * message beyond the credits the engine handed out breaks the endpoint with {@link CreditProtocolException} at once;
 * the receiver gets exactly the peer's messages, in order, and nothing else; the endpoint ends only with a typed
 * error (never an exception escaping the engine); and once it is closed every buffer is back in the pool.
 */
class CreditProtocolFuzzTest {

    private static final int DEPTH = 4;
    private static final int MAX_BATCH = 128;
    private static final Capabilities CAPS = new Capabilities("fuzz", EnumSet.of(Operation.SEND, Operation.RECEIVE),
            1024, 0, 1, EnumSet.allOf(Ordering.class), DEPTH, DEPTH, 1e9, Duration.ofNanos(1000), Completion.REMOTE,
            Completion.REMOTE);

    /** One transport for the whole run: endpoints are cheap, polling threads are not. */
    private static final ScriptedTransport TRANSPORT = new ScriptedTransport(CAPS);

    @FuzzTest(maxDuration = "30s")
    void hostilePeerCannotBreakTheCreditRules(FuzzedDataProvider data) throws InterruptedException {
        long baseline = TRANSPORT.memory().buffers().outstanding();
        ScriptedPeer peer = new ScriptedPeer();
        EndpointEngine endpoint = TRANSPORT.open(peer);
        Receiver receiver = new Receiver();
        endpoint.receive().subscribe(receiver);
        List<Mono<Void>> sends = new ArrayList<>();
        AtomicInteger sendsDone = new AtomicInteger();
        try {
            int steps = 0;
            while (data.remainingBytes() > 0 && steps++ < 64 && !endpoint.isDisposed()) {
                switch (data.consumeInt(0, 8)) {
                    case 0 -> peer.deliver(ControlWord.encode(ControlWord.DATA, smallCredits(data)),
                            data.consumeBytes(data.consumeInt(0, 48)));
                    case 1 -> peer.deliver(ControlWord.encode(ControlWord.BATCH, smallCredits(data)),
                            batch(data));
                    case 2 -> peer.deliver(ControlWord.encode(ControlWord.BATCH, smallCredits(data)),
                            data.consumeBytes(data.consumeInt(0, 64)));
                    case 3 -> peer.deliver(ControlWord.encode(ControlWord.CREDIT,
                            data.consumeBoolean() ? ControlWord.MAX_CREDITS : data.consumeLong(0, 8)), null);
                    case 4 -> {
                        long word = data.consumeLong();
                        int type = ControlWord.type(word);
                        peer.deliver(word, type == ControlWord.DATA || type == ControlWord.BATCH
                                ? data.consumeBytes(data.consumeInt(0, 16)) : null);
                    }
                    case 5 -> peer.deliver(ControlWord.encode(ControlWord.CLOSE, 0), null);
                    case 6 -> receiver.more(data.consumeInt(1, 2 * DEPTH));
                    case 7 -> {
                        Buffer b = endpoint.memory().allocate(16).write(data.consumeBytes(data.consumeInt(0, 16)));
                        Mono<Void> s = endpoint.send(b).doFinally(x -> sendsDone.incrementAndGet());
                        s.subscribe(null, e -> { });
                        sends.add(s);
                    }
                    default -> receiver.cancelSometimes(data.consumeBoolean());
                }
                assertThat(peer.violation.get()).as("credit rule").isNull();
            }
        } finally {
            endpoint.dispose();
            endpoint.onClose().onErrorComplete().block(Duration.ofSeconds(10));
        }
        assertThat(peer.violation.get()).as("credit rule").isNull();
        TransportException ended = endpoint.closeCause();
        assertThat(ended).as("how the endpoint ended")
                .isInstanceOfAny(CreditProtocolException.class, ConnectionLostException.class,
                        ResourceClosedException.class);
        assertThat(ended.getMessage()).as("no exception escaped the engine")
                .doesNotStartWith("polling the connection");
        if (peer.mustBreak) {
            assertThat(ended).as("a message without a credit breaks the endpoint")
                    .isInstanceOf(CreditProtocolException.class);
        }
        if (receiver.error.get() != null) {
            assertThat(receiver.error.get()).as("the receiver learns why").isSameAs(ended);
        }
        List<byte[]> got = receiver.messages;
        assertThat(got.size()).isLessThanOrEqualTo(peer.accepted.size());
        for (int i = 0; i < got.size(); i++) {
            assertThat(got.get(i)).as("message %d", i).isEqualTo(peer.accepted.get(i));
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while ((sendsDone.get() < sends.size()
                || TRANSPORT.memory().buffers().outstanding() != baseline) && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(sendsDone.get()).as("every send terminated").isEqualTo(sends.size());
        assertThat(TRANSPORT.memory().buffers().outstanding()).as("buffers back in the pool").isEqualTo(baseline);
    }

    private static long smallCredits(FuzzedDataProvider data) {
        return data.consumeLong(0, 3);
    }

    /** A well-formed coalesced frame of up to four records. */
    private static byte[] batch(FuzzedDataProvider data) {
        int n = data.consumeInt(1, 4);
        ByteBuffer b = ByteBuffer.allocate(MAX_BATCH).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
            byte[] m = data.consumeBytes(data.consumeInt(0, 8));
            b.putInt(m.length).put(m);
        }
        return Arrays.copyOf(b.array(), b.position());
    }

    /** Takes a copy of every message (the endpoint releases it), and asks for more only when the script says so. */
    private static final class Receiver extends BaseSubscriber<Buffer> {
        final List<byte[]> messages = new CopyOnWriteArrayList<>();
        final AtomicReference<Throwable> error = new AtomicReference<>();

        @Override
        protected void hookOnSubscribe(Subscription s) {
        }

        @Override
        protected void hookOnNext(Buffer b) {
            messages.add(b.toArray());
        }

        @Override
        protected void hookOnError(Throwable t) {
            error.set(t);
        }

        void more(int n) {
            request(n);
        }

        void cancelSometimes(boolean really) {
            if (really) {
                cancel();
            }
        }
    }

    /**
     * The peer's side of the wire, played by the fuzzer. Runs the checks where the facts are: on the polling thread,
     * at the moment the engine acts.
     */
    private static final class ScriptedPeer implements Wire {
        private final ConcurrentLinkedQueue<Object[]> inbound = new ConcurrentLinkedQueue<>();
        private final ArrayList<Op> completions = new ArrayList<>();
        private final AtomicInteger undelivered = new AtomicInteger();
        final AtomicReference<String> violation = new AtomicReference<>();
        /** The messages the engine had to accept, in order (those within the credits it handed out). */
        final List<byte[]> accepted = new CopyOnWriteArrayList<>();
        volatile boolean mustBreak;
        private long creditsToEngine;
        private long engineMessages;
        private long receivesPosted;
        private long peerMessages;
        private volatile boolean closed;

        /** Hands the engine one word (and payload) and waits until its polling thread took it. */
        void deliver(long word, byte[] payload) {
            undelivered.incrementAndGet();
            inbound.add(new Object[]{word, payload});
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (undelivered.get() > 0 && !closed) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the engine stopped polling its wire");
                }
                Thread.onSpinWait();
            }
        }

        @Override
        public int send(long word, Op op) {
            int type = ControlWord.type(word);
            if (op != null) {
                int n = type == ControlWord.BATCH
                        ? BatchFraming.count(op.buffer().capacitySegment(), op.buffer().length()) : 1;
                engineMessages += n;
                if (n < 0 || engineMessages > creditsToEngine) {
                    violation.compareAndSet(null, "engine sent " + engineMessages + " messages with "
                            + creditsToEngine + " credits");
                }
                completions.add(op);
                return POSTED;
            }
            if (type != ControlWord.CREDIT && type != ControlWord.CLOSE) {
                violation.compareAndSet(null, "protocol-only word of type " + type);
            }
            return DONE;
        }

        @Override
        public void postReceives(int count) {
            receivesPosted += count;
        }

        @Override
        public int rma(Op op) {
            throw new AssertionError("no RMA in this test");
        }

        @Override
        public int flush(Op op) {
            return DONE;
        }

        @Override
        public int maxBatchBytes() {
            return MAX_BATCH;
        }

        @Override
        public int poll(WireEvents events) {
            int work = completions.size();
            List<Op> done = new ArrayList<>(completions);
            completions.clear();
            for (Op op : done) {
                if (closed) {
                    events.failed(op, new ResourceClosedException("endpoint closed before the send completed"));
                } else {
                    events.completed(op, 0);
                }
            }
            if (closed) {
                return work;
            }
            Object[] next = inbound.poll();
            if (next == null) {
                return work;
            }
            long word = (long) next[0];
            byte[] bytes = (byte[]) next[1];
            Buffer payload = null;
            if (bytes != null) {
                payload = TRANSPORT.memory().allocate(Math.max(1, bytes.length)).write(bytes);
            }
            boolean valid = ControlWord.isValid(word);
            int messages = 0;
            if (valid && ControlWord.type(word) == ControlWord.DATA) {
                messages = 1;
            } else if (valid && ControlWord.type(word) == ControlWord.BATCH) {
                messages = BatchFraming.count(payload.capacitySegment(), payload.length());
            }
            boolean overrun = messages > 0 && peerMessages + messages > receivesPosted;
            if (valid && messages >= 0) {
                creditsToEngine += ControlWord.credits(word);
            }
            if (valid && messages > 0 && !overrun) {
                peerMessages += messages;
                if (ControlWord.type(word) == ControlWord.DATA) {
                    accepted.add(bytes);
                } else {
                    BatchFraming.unpack(payload.capacitySegment(), payload.length(),
                            (f, off, len) -> accepted.add(f.asSlice(off, len).toArray(
                                    java.lang.foreign.ValueLayout.JAVA_BYTE)));
                }
            }
            boolean wasOpen = !((Endpoint) events).isDisposed();
            events.received(word, payload);
            if (wasOpen && (overrun || !valid || messages < 0)) {
                mustBreak |= overrun;
                if (!((Endpoint) events).isDisposed()) {
                    violation.compareAndSet(null, "endpoint still open after "
                            + (overrun ? "a message without credit" : "a malformed word 0x" + Long.toHexString(word)));
                }
            }
            undelivered.decrementAndGet();
            return work + 1;
        }

        @Override
        public Capabilities capabilities() {
            return CAPS;
        }

        @Override
        public String remoteAddress() {
            return "fuzz://peer";
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
