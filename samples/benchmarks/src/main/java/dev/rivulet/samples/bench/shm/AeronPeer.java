package dev.rivulet.samples.bench.shm;

import dev.rivulet.samples.bench.Ack;
import dev.rivulet.samples.bench.ResultLine;
import dev.rivulet.samples.bench.SeqCounter;
import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.BufferClaim;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static dev.rivulet.samples.bench.BenchWire.ACK;
import static dev.rivulet.samples.bench.BenchWire.DATA;
import static dev.rivulet.samples.bench.BenchWire.LAST;
import static dev.rivulet.samples.bench.BenchWire.PING;
import static dev.rivulet.samples.bench.BenchWire.PONG;
import static dev.rivulet.samples.bench.BenchWire.allocated;
import static dev.rivulet.samples.bench.BenchWire.header;
import static dev.rivulet.samples.bench.BenchWire.seq;
import static dev.rivulet.samples.bench.BenchWire.type;
import static io.aeron.logbuffer.FrameDescriptor.BEGIN_FRAG_FLAG;
import static io.aeron.logbuffer.FrameDescriptor.END_FRAG_FLAG;

/**
 * The Aeron IPC half of {@link ShmBenchNode}, written as Aeron's own samples are (EmbeddedIpcThroughput,
 * EmbeddedBufferClaimIpcThroughput, Ping, Pong): an embedded media driver in the server's JVM, one exclusive
 * publication each way on an {@code aeron:ipc} channel, {@code tryClaim} for messages that fit one frame and
 * {@code offer} for larger ones, {@code Subscription.poll} in a busy-spinning loop. The server's handler reads each
 * message's {@link dev.rivulet.samples.bench.BenchWire} header where the log buffer holds it (first fragment) and
 * counts the message at its last fragment: nothing is copied or reassembled on the receiving side.
 */
final class AeronPeer {

    /** Client to server: data and pings. */
    static final int DATA_STREAM = 1001;
    /** Server to client: acks and pongs. */
    static final int REPLY_STREAM = 1002;
    /** Fragments per poll, as Aeron's samples' default (SampleConfiguration.FRAGMENT_COUNT_LIMIT). */
    static final int FRAGMENT_LIMIT = 10;
    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    private AeronPeer() {
    }

    /**
     * The embedded media driver in {@code dir}, deleted when it closes: SHARED threading (one agent for conductor,
     * sender and receiver: the mode Aeron suggests where cores are scarce, and for IPC the conductor is the only part
     * with work), term buffers pre-touched ({@code termBufferSparseFile(false)}, as Aeron's LowLatencyMediaDriver).
     * The agent busy-spins while Aeron is measured when {@code spin}; otherwise it keeps Aeron's default backoff,
     * which measured faster on two vCPUs: the IPC data path does not go through the driver (publisher and subscriber
     * share the log buffer; the conductor only moves the publication limit and cleans consumed term space), and a
     * third spinning thread there takes a CPU from one of the two that carry the data.
     */
    static MediaDriver launchDriver(String dir, boolean spin) {
        MediaDriver.Context ctx = new MediaDriver.Context()
                .aeronDirectoryName(dir)
                .dirDeleteOnStart(true)
                .dirDeleteOnShutdown(true)
                .threadingMode(ThreadingMode.SHARED)
                .sharedIdleStrategy(spin ? Spin.aeron() : new BackoffIdleStrategy())
                .termBufferSparseFile(false);
        return MediaDriver.launchEmbedded(ctx);
    }

    static Aeron connect(String dir) {
        return Aeron.connect(new Aeron.Context().aeronDirectoryName(dir));
    }

    /** Spins until {@code ready} holds or the timeout passes. */
    private static void await(BooleanSupplier ready, String what) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!ready.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Aeron: timed out waiting for " + what);
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    /** Throws for an offer or claim result that will not change by retrying; true when it should be retried. */
    private static boolean retry(long result, long deadline) {
        if (result == Publication.NOT_CONNECTED || result == Publication.CLOSED
                || result == Publication.MAX_POSITION_EXCEEDED) {
            throw new IllegalStateException("Aeron publication failed: " + Publication.errorString(result));
        }
        if (System.nanoTime() > deadline) {
            throw new IllegalStateException("Aeron publication back-pressured past the timeout");
        }
        Thread.onSpinWait();
        return true;
    }

    // ============================================================================================== server

    /** Polls the data stream on a thread of its own; counts data, answers LAST with an ACK and PING with a PONG. */
    static final class Server implements FragmentHandler, AutoCloseable {
        private final Aeron aeron;
        private final Subscription data;
        private final ExclusivePublication reply;
        private final Thread thread;
        private final SeqCounter counter = new SeqCounter();
        private final BufferClaim claim = new BufferClaim();
        private final MemorySegment ackSegment = Arena.global().allocate(32, 64);
        private final UnsafeBuffer ackBuffer = new UnsafeBuffer(ackSegment.address(), 32);
        private volatile boolean running = true;
        /** The header of the message whose fragments are being polled. */
        private long header;

        Server(String channel, String dir) {
            aeron = connect(dir);
            data = aeron.addSubscription(channel, DATA_STREAM);
            reply = aeron.addExclusivePublication(channel, REPLY_STREAM);
            thread = new Thread(this::pollLoop, "aeron-bench-server");
            thread.setDaemon(true);
            thread.start();
        }

        private void pollLoop() {
            IdleStrategy idle = Spin.aeron();
            while (running) {
                idle.idle(data.poll(this, FRAGMENT_LIMIT));
            }
        }

        @Override
        public void onFragment(DirectBuffer buffer, int offset, int length, Header h) {
            byte flags = h.flags();
            if ((flags & BEGIN_FRAG_FLAG) != 0) {
                header = buffer.getLong(offset, ByteOrder.LITTLE_ENDIAN);
            }
            if ((flags & END_FRAG_FLAG) == 0) {
                return;
            }
            if (counter.onMessage(header)) {
                counter.ack(ackSegment);
                long deadline = System.nanoTime() + TIMEOUT.toNanos();
                long r;
                while ((r = reply.offer(ackBuffer, 0, 32)) < 0 && retry(r, deadline)) {
                    // retried
                }
            } else if (type(header) == PING) {
                long deadline = System.nanoTime() + TIMEOUT.toNanos();
                long r;
                while ((r = reply.tryClaim(length, claim)) < 0 && retry(r, deadline)) {
                    // retried
                }
                claim.buffer().putBytes(claim.offset(), buffer, offset, length);
                claim.buffer().putLong(claim.offset(), header(PONG, seq(header)), ByteOrder.LITTLE_ENDIAN);
                claim.commit();
            }
        }

        @Override
        public void close() throws InterruptedException {
            running = false;
            thread.join(5_000);
            reply.close();
            data.close();
            aeron.close();
        }
    }

    // ============================================================================================== client

    /** The client's publication and reply subscription; its measurements run on the calling thread. */
    static final class Client implements FragmentHandler, AutoCloseable {
        private final Aeron aeron;
        private final ExclusivePublication data;
        private final Subscription replies;
        private final BufferClaim claim = new BufferClaim();
        private final UnsafeBuffer source;
        private final String channel;
        private Ack ack;
        private long pongs;
        private long pongNanos;

        Client(String channel, String dir, int maxSize) {
            this.channel = channel;
            aeron = connect(dir);
            data = aeron.addExclusivePublication(channel, DATA_STREAM);
            replies = aeron.addSubscription(channel, REPLY_STREAM);
            await(() -> data.isConnected() && replies.isConnected(), "the server's subscription and publication");
            source = new UnsafeBuffer(BufferUtil.allocateDirectAligned(Math.max(64, maxSize), 64));
            source.setMemory(0, source.capacity(), (byte) 0x5a);
        }

        @Override
        public void onFragment(DirectBuffer buffer, int offset, int length, Header h) {
            long now = System.nanoTime();
            long hd = buffer.getLong(offset, ByteOrder.LITTLE_ENDIAN);
            switch (type(hd)) {
                case PONG -> {
                    pongNanos = now;
                    pongs++;
                }
                case ACK -> ack = new Ack(buffer.getLong(offset + 8, ByteOrder.LITTLE_ENDIAN),
                        buffer.getLong(offset + 16, ByteOrder.LITTLE_ENDIAN),
                        buffer.getLong(offset + 24, ByteOrder.LITTLE_ENDIAN), now);
                default -> {
                }
            }
        }

        /** Publishes one message of {@code size} bytes starting with {@code hd}. */
        private void publish(int size, long hd, long deadline) {
            long r;
            if (size <= data.maxPayloadLength()) {
                // One frame: claim it and write the header in place, as Aeron recommends for small messages.
                while ((r = data.tryClaim(size, claim)) < 0 && retry(r, deadline)) {
                    // retried
                }
                claim.buffer().putLong(claim.offset(), hd, ByteOrder.LITTLE_ENDIAN);
                claim.commit();
            } else {
                source.putLong(0, hd, ByteOrder.LITTLE_ENDIAN);
                while ((r = data.offer(source, 0, size)) < 0 && retry(r, deadline)) {
                    // retried
                }
            }
        }

        /** Sends {@code n} messages and returns the server's checked ACK of them. */
        private Ack phase(int size, long n) {
            ack = null;
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            for (long i = 0; i < n; i++) {
                publish(size, header(i == n - 1 ? LAST : DATA, i), deadline);
            }
            while (ack == null) {
                if (replies.poll(this, FRAGMENT_LIMIT) == 0) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("Aeron: no ACK from the server");
                    }
                    Thread.onSpinWait();
                }
            }
            return ack.check("aeron server", n);
        }

        String stream(int size, long count) {
            long warmCount = Math.max(1, count / 10);
            long w0 = allocated();
            Ack warm = phase(size, warmCount);
            long w1 = allocated();
            long a0 = allocated();
            long t0 = System.nanoTime();
            Ack a = phase(size, count);
            long a1 = allocated();
            return ResultLine.rate("aeron", "stream", "channel=" + channel, size, count, (a.nanos() - t0) / 1e9,
                    a1 - a0, a.serverAlloc())
                    + ResultLine.allocationSlope(warmCount, w1 - w0, warm.serverAlloc(), count, a1 - a0,
                    a.serverAlloc());
        }

        String pingpong(int size, int count) {
            int warm = Math.max(1, count / 10);
            long[] rtt = new long[count];
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            for (int i = 0; i < warm + count; i++) {
                long expected = pongs + 1;
                long t0 = System.nanoTime();
                publish(size, header(PING, i), deadline);
                for (int polls = 1; pongs != expected; polls++) {
                    if (replies.poll(this, FRAGMENT_LIMIT) == 0) {
                        if ((polls & 0xffff) == 0 && System.nanoTime() > deadline) {
                            throw new IllegalStateException("Aeron: no PONG from the server");
                        }
                        Thread.onSpinWait();
                    }
                }
                if (i >= warm) {
                    rtt[i - warm] = pongNanos - t0;
                }
            }
            return ResultLine.pingpong("aeron", "channel=" + channel, size, rtt);
        }

        @Override
        public void close() {
            replies.close();
            data.close();
            aeron.close();
        }
    }
}
