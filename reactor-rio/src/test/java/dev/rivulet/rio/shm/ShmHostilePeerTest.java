package dev.rivulet.rio.shm;

import dev.rivulet.core.CloseReason;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.engine.AtomicOp;
import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.core.security.SecuritySettings;
import dev.rivulet.rio.ShmOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A peer that passed set-up and then writes into the shared rings whatever it likes: records nobody may send,
 * positions it could not have written, messages without credit, chunks outside its pool, keys it was not given,
 * requests beyond what it said it keeps in flight. The listener's endpoint refuses each one: a request with a bad
 * key is answered with a refusal and changes nothing, anything else ends that connection with
 * {@link CreditProtocolException}. The peer here is this test, speaking the protocol by hand.
 */
@Timeout(60)
class ShmHostilePeerTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private Transport server;
    private Listener listener;
    private final java.util.concurrent.BlockingQueue<Endpoint> accepted =
            new java.util.concurrent.LinkedBlockingQueue<>();
    private final Arena arena = Arena.ofShared();
    private final List<ShmConnection> raw = new ArrayList<>();

    @BeforeAll
    static void requireShm() {
        ShmTests.requireShm();
    }

    @BeforeEach
    void listen() {
        listen(TransportConfig.defaults());
    }

    private void listen(TransportConfig config) {
        server = ShmTests.open(config);
        listener = server.bind(ShmTests.address("hostile")).block(TIMEOUT);
        listener.accepted().subscribe(accepted::add);
    }

    @AfterEach
    void close() {
        raw.forEach(ShmConnection::close);
        server.dispose();
        arena.close();
        assertThat(ShmTests.filesOf(ProcessHandle.current().pid())).isEmpty();
    }

    /** A connection set up by the book, then driven by hand; returns the listener's endpoint for it. */
    private Endpoint rawPeer() throws Exception {
        return rawPeer(4);
    }

    /** As {@link #rawPeer()}, announcing that it keeps up to {@code maxRequests} requests in flight. */
    private Endpoint rawPeer(int maxRequests) throws Exception {
        ConnectionSetUp setUp = new ConnectionSetUp(SecuritySettings.defaults(),
                ShmSettings.from(TransportConfig.defaults()), maxRequests, arena);
        SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        ch.connect(UnixDomainSocketAddress.of(ShmAddress.socketPath(ShmAddress.directory(null),
                ShmAddress.nameOf(listener.address()))));
        ShmConnection c = setUp.dial(ch, System.nanoTime() + TIMEOUT.toNanos());
        raw.add(c);
        Endpoint ep = accepted.poll(TIMEOUT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
        assertThat(ep).isNotNull();
        return ep;
    }

    private ShmConnection peer() {
        return raw.getLast();
    }

    private void write(int kind, long word, long... longs) {
        long at = peer().out.claim(kind, word, longs.length * 8);
        assertThat(at).isNotNegative();
        for (int i = 0; i < longs.length; i++) {
            peer().out.data().set(ValueLayout.JAVA_LONG, at + 8L * i, longs[i]);
        }
        peer().out.publish();
        peer().peerBell.ring();
    }

    private static void endsWithProtocolViolation(Endpoint ep) {
        CloseReason r = ep.closeReason().block(TIMEOUT);
        assertThat(r.kind()).isEqualTo(CloseReason.Kind.FAILURE);
        assertThat(r.cause()).isInstanceOf(CreditProtocolException.class);
    }

    /** The next answer the listener wrote back: its kind and word. */
    private long[] answer() {
        long[] a = answerWithValue();
        return new long[]{a[0], a[1]};
    }

    /** The next answer: kind, word, and the payload's first long (0 when it has none). */
    private long[] answerWithValue() {
        long[] got = new long[3];
        long end = System.nanoTime() + TIMEOUT.toNanos();
        while (System.nanoTime() < end) {
            if (peer().in.read((kind, word, data, offset, length) -> {
                got[0] = kind;
                got[1] = word;
                got[2] = length >= 8 ? data.get(ValueLayout.JAVA_LONG, offset) : 0;
                return true;
            }, 1) == 1) {
                return got;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no answer");
    }

    /** Copies {@code n} bytes of {@code value} into the raw peer's pool and announces them as a chunk. */
    private void chunk(int n, byte value) {
        long position = peer().poolOut.reserve(n);
        assertThat(position).isNotNegative();
        peer().outPool.data.asSlice(peer().outPool.index(position), n).fill(value);
        write(Records.CHUNK, position, n);
    }

    @Test
    void aMessageWithoutACreditEndsTheConnection() throws Exception {
        Endpoint ep = rawPeer();
        write(Records.MESSAGE, ControlWord.encode(ControlWord.DATA, 0), 42);
        endsWithProtocolViolation(ep);
    }

    @Test
    void aTailBeyondWhatTheRingHoldsEndsTheConnection() throws Exception {
        Endpoint ep = rawPeer();
        RecordRing ring = new RecordRing(peer().outRingRegion, peer().outRingBytes);
        RecordRing.LONG.setRelease(ring.header, RecordRing.TAIL, (long) peer().outRingBytes * 3);
        peer().peerBell.ring();
        endsWithProtocolViolation(ep);
    }

    @Test
    void recordsOfUnknownKindAndChunksOutsideThePoolEndTheConnection() throws Exception {
        Endpoint ep = rawPeer();
        write(77, 0);
        endsWithProtocolViolation(ep);
        Endpoint second = rawPeer();
        write(Records.CHUNK, 1L << 40, 4096);
        endsWithProtocolViolation(second);
    }

    @Test
    void forgedAndOutOfBoundsKeysAreRefusedAndChangeNothing() throws Exception {
        Endpoint ep = rawPeer();
        MemoryRegion target = server.memory().register(arena.allocate(4096, 64), Access.REMOTE_WRITE,
                Access.REMOTE_READ);
        target.segment().fill((byte) 1);
        RemoteMemory r = ep.grant(target.slice(0, 1024), Access.REMOTE_WRITE, Access.REMOTE_READ).remote();
        // inline puts of 8 bytes: a forged key, a window widened by hand, one byte past the end
        write(Records.PUT, 1, r.key() ^ 1, r.address(), 8, Records.INLINE, -1L);
        assertThat(answer()).containsExactly(Records.REFUSED, 1);
        write(Records.PUT, 2, r.key(), r.address() + 1020, 8, Records.INLINE, -1L);
        assertThat(answer()).containsExactly(Records.REFUSED, 2);
        write(Records.PUT, 3, r.key(), r.address() - 8, 8, Records.INLINE, -1L);
        assertThat(answer()).containsExactly(Records.REFUSED, 3);
        write(Records.PUT, 4, r.key(), r.address() + 2048, 8, Records.INLINE, -1L);
        assertThat(answer()).as("beyond the window, inside the region").containsExactly(Records.REFUSED, 4);
        for (long i = 0; i < 4096; i++) {
            assertThat(target.segment().get(ValueLayout.JAVA_BYTE, i)).as("byte %d", i).isEqualTo((byte) 1);
        }
        write(Records.PUT, 5, r.key(), r.address() + 8, 8, Records.INLINE, -1L);
        assertThat(answer()).as("the granted window itself").containsExactly(Records.OK, 5);
        assertThat(target.segment().get(ValueLayout.JAVA_LONG, 8)).isEqualTo(-1L);
        assertThat(ep.isDisposed()).as("refusing is no reason to end the connection").isFalse();
        target.close();
    }

    @Test
    void atomicsOnAMisalignedWordAreRefusedWhereverTheWindowStarts() throws Exception {
        Endpoint ep = rawPeer();
        MemoryRegion target = server.memory().register(arena.allocate(64, 64), Access.REMOTE_ATOMIC);
        target.segment().fill((byte) 0);
        // A window starting at byte 4 of a 64-byte line: the handle numbers its bytes from 4, as their alignment is.
        RemoteMemory r = ep.grant(target.slice(4, 40), Access.REMOTE_ATOMIC).remote();
        assertThat(r.address()).isEqualTo(4);
        long fetchAdd8 = (8L << 32) | AtomicOp.FETCH_ADD.ordinal(); // op, then width, as two ints
        write(Records.ATOMIC, 1, r.key(), r.address(), 1, 0, fetchAdd8);      // bytes 4-11: no word
        assertThat(answer()).containsExactly(Records.REFUSED, 1);
        write(Records.ATOMIC, 2, r.key(), r.address() + 2, 1, 0, fetchAdd8);  // bytes 6-13
        assertThat(answer()).containsExactly(Records.REFUSED, 2);
        write(Records.ATOMIC, 3, r.key(), r.address() + 4, 7, 0, fetchAdd8);  // bytes 8-15: an aligned word
        assertThat(answerWithValue()).containsExactly(Records.VALUE, 3, 0);
        assertThat(target.segment().get(ValueLayout.JAVA_LONG, 8)).isEqualTo(7L);
        assertThat(target.segment().get(ValueLayout.JAVA_INT, 4)).as("the refused ones changed nothing").isZero();
        assertThat(ep.isDisposed()).isFalse();
        target.close();
    }

    @Test
    void aSideThatOffersNoCopiesNamesNoAddressOfItsMemory() throws Exception {
        Endpoint ep = rawPeer();
        MemoryRegion target = server.memory().register(arena.allocate(64 << 10, 4096), Access.REMOTE_WRITE,
                Access.REMOTE_READ);
        RemoteMemory r = ep.grant(target.slice(), Access.REMOTE_WRITE, Access.REMOTE_READ).remote();
        // a valid key and window: still no answer that names where the bytes lie, and no pin left behind
        write(Records.PUT, 1, r.key(), r.address(), 16384, Records.CROSS_MEMORY);
        assertThat(answer()).containsExactly(Records.REFUSED, 1);
        write(Records.GET, 2, r.key(), r.address(), 16384, Records.CROSS_MEMORY);
        assertThat(answer()).containsExactly(Records.REFUSED, 2);
        assertThat(target.pins()).isZero();
        assertThat(ep.isDisposed()).isFalse();
        target.close();
    }

    @Test
    void largeRequestsAreCheckedBeforeAByteMovesAndCopyPermissionsAreForOneCopyOnly() throws Exception {
        server.dispose();
        listen(TransportConfig.defaults().option(ShmOptions.CROSS_MEMORY_ATTACH, true)); // it offers copies
        Endpoint ep = rawPeer();
        int size = 64 << 10;
        MemoryRegion target = server.memory().register(arena.allocate(size, 4096), Access.REMOTE_WRITE,
                Access.REMOTE_READ);
        target.segment().fill((byte) 1);
        RemoteMemory r = ep.grant(target.slice(), Access.REMOTE_WRITE, Access.REMOTE_READ).remote();
        // staged: a forged key's chunks are taken and dropped, then refused
        write(Records.PUT, 1, r.key() ^ 1, r.address(), 16384, Records.STAGED_DATA);
        chunk(16384, (byte) 9);
        assertThat(answer()).containsExactly(Records.REFUSED, 1);
        // copied across: a forged key or a widened window gets no address at all
        write(Records.PUT, 2, r.key() ^ 1, r.address(), size, Records.CROSS_MEMORY);
        assertThat(answer()).containsExactly(Records.REFUSED, 2);
        write(Records.GET, 3, r.key(), r.address() + 8, size, Records.CROSS_MEMORY);
        assertThat(answer()).containsExactly(Records.REFUSED, 3);
        for (long i = 0; i < size; i++) {
            assertThat(target.segment().get(ValueLayout.JAVA_BYTE, i)).as("byte %d", i).isEqualTo((byte) 1);
        }
        // a granted copy names exactly the requested address and pins the region until the peer says done
        write(Records.PUT, 4, r.key(), r.address() + 4096, 8192, Records.CROSS_MEMORY);
        long[] go = answerWithValue();
        assertThat(go[0]).isEqualTo(Records.GO);
        assertThat(go[2]).isEqualTo(target.address() + 4096);
        assertThat(target.pins()).isPositive();
        write(Records.DONE, 4);
        long end = System.nanoTime() + TIMEOUT.toNanos();
        while (target.pins() > 0 && System.nanoTime() < end) {
            Thread.onSpinWait();
        }
        assertThat(target.pins()).isZero();
        // a second "done" for the same request is a lie
        write(Records.DONE, 4);
        endsWithProtocolViolation(ep);
        target.close();
    }

    /**
     * A large get whose staged answer had to wait (the ring back was full) and whose transfer then completes inside
     * the write that sends it: the writer comes back for the next waiting answer, and must not find the same one
     * again. Every request is answered exactly once, in order.
     */
    @Test
    void aWaitingStagedAnswerIsWrittenOnce() throws Exception {
        Endpoint ep = rawPeer(64);
        MemoryRegion target = server.memory().register(arena.allocate(16 << 10, 4096), Access.REMOTE_READ);
        RemoteMemory r = ep.grant(target.slice(), Access.REMOTE_READ).remote();
        // Flushes fill the ring back with their answers, one 16-byte record each, and 32 more wait in the listener's
        // queue (nobody reads them yet); the get's answer, just above the large-message threshold (8 KiB), so staged
        // in one chunk, waits behind them, and the flush after it behind that.
        long id = 0;
        int filling = ShmOptions.RING_BYTES.defaultValue() / RecordRing.RECORD_HEADER;
        int flushes = filling + 32;
        while (id < flushes) {
            if (peer().out.claim(Records.FLUSH, ++id, 0) < 0) {
                peer().peerBell.ring();
                id--;
                Thread.onSpinWait();
                continue;
            }
            peer().out.publish();
        }
        peer().peerBell.ring();
        long get = ++id;
        write(Records.GET, get, r.key(), r.address(), 16 << 10, Records.COPY);
        long flush = ++id;
        write(Records.FLUSH, flush);
        // Take the first ring's worth back at once: the listener then writes its queue in one go, the staged answer's
        // transfer finishing inside the write that sends it. Then read the rest: each id once, in order.
        long readAll = System.nanoTime() + TIMEOUT.toNanos();
        while (!peer().out.drained() && System.nanoTime() < readAll) {
            Thread.onSpinWait(); // until the listener has read every request (and queued what its ring cannot take)
        }
        int[] consumed = {0};
        while (consumed[0] < filling) {
            consumed[0] += peer().in.read((kind, word, data, offset, length) -> true, filling - consumed[0]);
        }
        peer().peerBell.ring();
        long expected = filling + 1;
        int staged = 0;
        long end = System.nanoTime() + TIMEOUT.toNanos();
        while (expected <= flush && System.nanoTime() < end) {
            long[] a = answerWithValue();
            if (a[0] == Records.CHUNK) {
                peer().poolIn.free(a[1], (int) a[2]);
                continue;
            }
            assertThat(a[1]).as("answer %d (kind %d)", expected, a[0]).isEqualTo(expected);
            if (a[1] == get) {
                assertThat(a[0]).isEqualTo(Records.STAGED);
                staged++;
            }
            expected++;
            peer().peerBell.ring();
        }
        assertThat(expected).as("every request answered").isEqualTo(flush + 1);
        assertThat(staged).isEqualTo(1);
        assertThat(ep.isDisposed()).isFalse();
        target.close();
    }

    @Test
    void requestsBeyondWhatThePeerSaidItKeepsInFlightEndTheConnection() throws Exception {
        Endpoint ep = rawPeer();
        // Flushes whose answers the peer never reads: the answers fill the ring back, then wait in a queue that
        // may hold what the peer announced (4 here) and little more; past that the connection ends.
        long id = 0;
        long end = System.nanoTime() + TIMEOUT.toNanos();
        while (!ep.isDisposed() && System.nanoTime() < end) {
            if (peer().out.claim(Records.FLUSH, ++id, 0) >= 0) {
                peer().out.publish();
                peer().peerBell.ring();
            } else {
                Thread.onSpinWait();
            }
        }
        endsWithProtocolViolation(ep);
        System.out.printf("the connection ended after %d unanswered requests%n", id);
    }
}
