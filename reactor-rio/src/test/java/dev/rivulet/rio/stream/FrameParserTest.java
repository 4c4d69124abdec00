package dev.rivulet.rio.stream;

import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.memory.NativeRegistration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The parser decides where every payload goes from its header alone, and a byte stream cut anywhere parses into the
 * same frames.
 */
class FrameParserTest {

    private static final long MAX_MESSAGE = 1 << 20;
    private static final long MAX_BATCH = 16 << 10;
    private static final long MAX_RMA = 1 << 20;
    private static final long DATA = ControlWord.encode(ControlWord.DATA, 3);
    private static final long PUT_ADDRESS = 0x1000;

    private final MemoryDomain memory = Internals.memory().newDomain("test",
            (segment, access, key) -> new NativeRegistration(key, segment.address(), MemorySegment.NULL, null, null));
    private final Arena arena = Arena.ofConfined();

    @AfterEach
    void close() {
        arena.close();
        Internals.memory().close(memory);
    }

    /** Records what the parser hands over as readable lines, and plays the wire's part (credits, grants). */
    private final class Recorder implements FrameParser.Sink {
        final List<String> events = new ArrayList<>();
        final MemorySegment putWindow = arena.allocate(4096);
        final MemorySegment getDestination = arena.allocate(4096);
        int credits = 100;
        boolean grantPuts = true;
        boolean granted = true;
        int allocations;
        /** When positive, a message larger than this gets a buffer of this size first, grown as it fills. */
        int firstPiece;
        final List<Integer> growths = new ArrayList<>();

        @Override
        public Buffer messageBuffer(long word, int length) {
            if (credits-- <= 0) {
                throw new CreditProtocolException("no credit");
            }
            allocations++;
            if (firstPiece > 0 && length > firstPiece) {
                return memory.allocate(firstPiece);
            }
            return memory.allocate(length).length(length);
        }

        @Override
        public Buffer growMessage(int filled, int length) {
            growths.add(filled);
            return memory.allocate((int) Math.min(length, 2L * filled));
        }

        @Override
        public void message(long word, Buffer payload) {
            events.add("message " + Long.toHexString(word) + " " + (payload == null ? "-" : hex(payload.segment())));
            if (payload != null) {
                payload.release();
            }
        }

        @Override
        public MemorySegment putTarget(long id, MemorySegment request, long dataLength) {
            events.add("put " + id + " @" + Long.toHexString(RmaRequest.address(request)) + " +" + dataLength);
            return grantPuts ? putWindow.asSlice(RmaRequest.address(request) - PUT_ADDRESS, dataLength) : null;
        }

        @Override
        public boolean putStillGranted() {
            return granted;
        }

        @Override
        public void putDone(long id, boolean applied) {
            events.add("putDone " + id + " " + applied);
        }

        @Override
        public void request(int kind, long id, MemorySegment request) {
            events.add(FrameKind.name(kind) + " " + id + " len " + RmaRequest.length(request));
        }

        @Override
        public MemorySegment getResponseTarget(long id, long length) {
            return getDestination.asSlice(0, length);
        }

        @Override
        public void frame(int kind, long tag, MemorySegment payload) {
            String what = kind == FrameKind.GET_RESP ? hex(getDestination.asSlice(0, 8)) : hex(payload);
            events.add(FrameKind.name(kind) + " " + tag + " " + what);
        }
    }

    private static String hex(MemorySegment s) {
        return HexFormat.of().formatHex(s.toArray(ValueLayout.JAVA_BYTE));
    }

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed * 31 + i);
        }
        return b;
    }

    /** A stream with a frame of every kind a peer sends, payloads included. */
    private MemorySegment sampleStream() {
        StreamBuilder b = new StreamBuilder();
        b.frame(FrameKind.MESSAGE, DATA, bytes(0, 1));
        b.frame(FrameKind.MESSAGE, DATA, bytes(7, 2));
        b.frame(FrameKind.MESSAGE, ControlWord.encode(ControlWord.CREDIT, 9), new byte[0]);
        b.put(5, PUT_ADDRESS + 16, bytes(300, 3));
        b.frame(FrameKind.HEARTBEAT, 0, new byte[0]);
        b.request(FrameKind.GET, 6, 4000);
        b.frame(FrameKind.GET_RESP, 7, bytes(100, 4));
        b.frame(FrameKind.ATOMIC_RESP, 8, bytes(8, 5));
        b.frame(FrameKind.RMA_ERR, 9, "remote access refused".getBytes());
        b.frame(FrameKind.MESSAGE, DATA, bytes(4096, 6));
        b.frame(FrameKind.FLUSH, 10, new byte[0]);
        b.frame(FrameKind.MESSAGE, ControlWord.encode(ControlWord.CLOSE, 0), new byte[0]);
        return b.build();
    }

    private final class StreamBuilder {
        private final List<byte[]> parts = new ArrayList<>();

        void frame(int kind, long tag, byte[] payload) {
            MemorySegment h = MemorySegment.ofArray(new byte[FrameHeader.BYTES]);
            FrameHeader.write(h, 0, kind, tag, payload.length);
            parts.add(h.toArray(ValueLayout.JAVA_BYTE));
            parts.add(payload);
        }

        void put(long id, long address, byte[] data) {
            MemorySegment req = MemorySegment.ofArray(new byte[RmaRequest.BYTES + data.length]);
            RmaRequest.write(req, 0, address, 77, data.length, 0, 0, 0, 0);
            MemorySegment.copy(data, 0, req, ValueLayout.JAVA_BYTE, RmaRequest.BYTES, data.length);
            frame(FrameKind.PUT, id, req.toArray(ValueLayout.JAVA_BYTE));
        }

        void request(int kind, long id, int length) {
            MemorySegment req = MemorySegment.ofArray(new byte[RmaRequest.BYTES]);
            RmaRequest.write(req, 0, 0x2000, 77, length, 0, 0, 0, 0);
            frame(kind, id, req.toArray(ValueLayout.JAVA_BYTE));
        }

        MemorySegment build() {
            int n = parts.stream().mapToInt(p -> p.length).sum();
            MemorySegment s = arena.allocate(Math.max(1, n));
            long at = 0;
            for (byte[] p : parts) {
                MemorySegment.copy(p, 0, s, ValueLayout.JAVA_BYTE, at, p.length);
                at += p.length;
            }
            return s.asSlice(0, n);
        }
    }

    private static FrameParser parser() {
        return new FrameParser(MAX_MESSAGE, MAX_BATCH, MAX_RMA);
    }

    private List<String> parse(MemorySegment stream, long... cuts) {
        Recorder r = new Recorder();
        FrameParser p = parser();
        long from = 0;
        for (long cut : cuts) {
            p.feed(stream, from, cut - from, r);
            from = cut;
        }
        p.feed(stream, from, stream.byteSize() - from, r);
        assertThat(p.atFrameBoundary()).isTrue();
        r.events.add("window " + hex(r.putWindow.asSlice(16, 300)).hashCode());
        return r.events;
    }

    @Test
    void everyKindParsesIdenticallyWhereverTheStreamIsCut() {
        MemorySegment stream = sampleStream();
        List<String> whole = parse(stream);
        assertThat(whole).hasSize(14).first().asString().startsWith("message");
        assertThat(whole).contains("put 5 @1010 +300", "putDone 5 true", "GET 6 len 4000", "HEARTBEAT 0 ",
                "FLUSH 10 ");
        for (long cut = 0; cut <= stream.byteSize(); cut += 7) {
            assertThat(parse(stream, cut)).as("cut at %d", cut).isEqualTo(whole);
        }
        long[] every = new long[(int) stream.byteSize()];
        for (int i = 0; i < every.length; i++) {
            every[i] = i;
        }
        assertThat(parse(stream, every)).as("one byte at a time").isEqualTo(whole);
        assertThat(memory.buffers().outstanding()).isZero();
    }

    /**
     * As a scatter receive delivers a stream: whenever a message's or a put's payload is incomplete, the next
     * chunk's first bytes are written straight into {@link FrameParser#payloadRemainder()} and the rest is fed
     * through the receive buffer; the frames are the same, and the remainder never reaches past the payload.
     */
    @Test
    void payloadRestReceivedStraightIntoItsDestinationParsesIdentically() {
        MemorySegment stream = sampleStream();
        List<String> whole = parse(stream);
        for (int chunk : new int[] {1, 5, 64, 1000, 5000}) {
            Recorder r = new Recorder();
            FrameParser p = parser();
            long at = 0;
            while (at < stream.byteSize()) {
                long n = Math.min(chunk, stream.byteSize() - at);
                int missing = p.mayReceiveDirect(r) ? p.payloadRemaining() : 0;
                if (missing > 0) {
                    MemorySegment rest = p.payloadTarget().asSlice(p.payloadFilled(), p.payloadRemaining());
                    assertThat(rest.byteSize()).isEqualTo(missing);
                    int direct = (int) Math.min(n, missing);
                    MemorySegment.copy(stream, at, rest, 0, direct);
                    p.filled(direct, r);
                    at += direct;
                    n -= direct;
                }
                p.feed(stream, at, n, r);
                at += n;
            }
            r.events.add("window " + hex(r.putWindow.asSlice(16, 300)).hashCode());
            assertThat(r.events).as("chunks of %d", chunk).isEqualTo(whole);
        }
        FrameParser idle = parser();
        assertThat(idle.payloadRemaining()).isZero();
        assertThatThrownBy(() -> idle.filled(1, new Recorder())).isInstanceOf(IllegalStateException.class);
    }

    /**
     * A message beyond the peer's receive budget gets a small buffer first, grown (doubling) as its bytes arrive:
     * delivered intact however the stream is cut and whichever path takes the bytes, never holding more than twice
     * what arrived, and nothing left allocated.
     */
    @Test
    void aMessageWhoseMemoryFollowsItsBytesArrivesIntactWhereverItIsCut() {
        byte[] big = bytes(70_000, 9);
        StreamBuilder b = new StreamBuilder();
        b.frame(FrameKind.MESSAGE, DATA, big);
        b.frame(FrameKind.MESSAGE, DATA, bytes(3, 4));
        MemorySegment stream = b.build();
        String expected = "message " + Long.toHexString(DATA) + " " + HexFormat.of().formatHex(big);
        for (int chunk : new int[] {1, 63, 4096, 100_000}) {
            for (boolean direct : new boolean[] {false, true}) {
                Recorder r = new Recorder();
                r.firstPiece = 1024;
                FrameParser p = parser();
                long at = 0;
                while (at < stream.byteSize()) {
                    long n = Math.min(chunk, stream.byteSize() - at);
                    int missing = direct && p.mayReceiveDirect(r) ? p.payloadRemaining() : 0;
                    if (missing > 0) {
                        long arrived = p.payloadFilled();
                        assertThat(p.payloadTarget().byteSize()).as("memory held for %d bytes in", arrived)
                                .isLessThanOrEqualTo(Math.max(1024, 2 * arrived));
                        int d = (int) Math.min(n, missing);
                        MemorySegment.copy(stream, at, p.payloadTarget(), p.payloadFilled(), d);
                        p.filled(d, r);
                        at += d;
                        continue;
                    }
                    p.feed(stream, at, n, r);
                    at += n;
                }
                assertThat(r.events).as("chunks of %d, direct %s", chunk, direct).hasSize(2).first()
                        .isEqualTo(expected);
                assertThat(r.growths).as("doubling from 1 KiB").containsExactly(1024, 2048, 4096, 8192, 16384, 32768,
                        65536);
                assertThat(memory.buffers().outstanding()).isZero();
            }
        }
    }

    @Test
    void aPartlyGrownMessageIsReleasedWhenTheParserCloses() {
        StreamBuilder b = new StreamBuilder();
        b.frame(FrameKind.MESSAGE, DATA, bytes(10_000, 1));
        MemorySegment stream = b.build();
        Recorder r = new Recorder();
        r.firstPiece = 1024;
        FrameParser p = parser();
        p.feed(stream, 0, 5000, r);
        assertThat(p.frameBytes()).isEqualTo(5000);
        assertThat(p.atFrameBoundary()).isFalse();
        assertThat(memory.buffers().outstanding()).isEqualTo(1);
        p.close();
        assertThat(memory.buffers().outstanding()).isZero();
        assertThat(p.frameBytes()).isZero();
    }

    @Test
    void everyKindHasItsOwnLimitCheckedBeforeAnythingIsAllocated() {
        long[][] tooLong = {
                {FrameKind.MESSAGE, DATA, MAX_MESSAGE + 1},
                {FrameKind.MESSAGE, ControlWord.encode(ControlWord.BATCH, 0), MAX_BATCH + 1},
                {FrameKind.MESSAGE, ControlWord.encode(ControlWord.CREDIT, 1), 1},
                {FrameKind.MESSAGE, ControlWord.encode(ControlWord.CLOSE, 0), 8},
                {FrameKind.PUT, 1, RmaRequest.BYTES + MAX_RMA + 1},
                {FrameKind.GET, 1, RmaRequest.BYTES + 1},
                {FrameKind.ATOMIC, 1, RmaRequest.BYTES + 8},
                {FrameKind.ATOMIC_RESP, 1, 9},
                {FrameKind.RMA_ERR, 1, FrameParser.MAX_ERROR_TEXT + 1},
                {FrameKind.RMA_ACK, 1, 1},
                {FrameKind.FLUSH, 1, 1},
                {FrameKind.FLUSH_ACK, 1, 1},
                {FrameKind.HEARTBEAT, 1, 1},
                {FrameKind.HEARTBEAT_ACK, 1, 1},
                {FrameKind.MESSAGE, DATA, 0xFFFF_FFFFL},
        };
        for (long[] f : tooLong) {
            MemorySegment h = arena.allocate(FrameHeader.BYTES);
            FrameHeader.write(h, 0, (int) f[0], f[1], (int) f[2]);
            Recorder r = new Recorder();
            assertThatThrownBy(() -> parser().feed(h, 0, FrameHeader.BYTES, r)).as(FrameKind.name((int) f[0]))
                    .isInstanceOf(CreditProtocolException.class);
            assertThat(r.allocations).isZero();
        }
        long[][] tooShort = {{FrameKind.PUT, RmaRequest.BYTES - 1}, {FrameKind.GET, RmaRequest.BYTES - 1},
                {FrameKind.ATOMIC_RESP, 7}, {FrameKind.MESSAGE, 0}};
        for (long[] f : tooShort) {
            MemorySegment h = arena.allocate(FrameHeader.BYTES);
            long tag = f[0] == FrameKind.MESSAGE ? ControlWord.encode(ControlWord.BATCH, 0) : 1;
            FrameHeader.write(h, 0, (int) f[0], tag, (int) f[1]);
            assertThatThrownBy(() -> parser().feed(h, 0, FrameHeader.BYTES, new Recorder()))
                    .isInstanceOf(CreditProtocolException.class);
        }
    }

    @Test
    void malformedHeadersAndWordsAreProtocolViolations() {
        MemorySegment s = arena.allocate(FrameHeader.BYTES);
        FrameHeader.write(s, 0, 99, 1, 0);
        assertThatThrownBy(() -> parser().feed(s, 0, 16, new Recorder())).isInstanceOf(CreditProtocolException.class);
        FrameHeader.write(s, 0, 0, 1, 0);
        assertThatThrownBy(() -> parser().feed(s, 0, 16, new Recorder())).isInstanceOf(CreditProtocolException.class);
        FrameHeader.write(s, 0, FrameKind.MESSAGE, ControlWord.encode(ControlWord.CREDIT, 1), 0);
        s.set(ValueLayout.JAVA_BYTE, 15, (byte) 1);
        assertThatThrownBy(() -> parser().feed(s, 0, 16, new Recorder())).isInstanceOf(CreditProtocolException.class);
        FrameHeader.write(s, 0, FrameKind.MESSAGE, 0x77, 0); // unknown control word type
        assertThatThrownBy(() -> parser().feed(s, 0, 16, new Recorder())).isInstanceOf(CreditProtocolException.class)
                .hasMessageContaining("control word");
    }

    @Test
    void aMessageWithoutCreditIsRefusedBeforeItsPayloadIsAllocated() {
        StreamBuilder b = new StreamBuilder();
        b.frame(FrameKind.MESSAGE, DATA, bytes(1 << 20, 1));
        MemorySegment stream = b.build();
        Recorder r = new Recorder();
        r.credits = 0;
        assertThatThrownBy(() -> parser().feed(stream, 0, FrameHeader.BYTES, r))
                .isInstanceOf(CreditProtocolException.class);
        assertThat(r.allocations).isZero();
        assertThat(memory.buffers().registeredBytes()).isZero();
    }

    @Test
    void aRefusedPutIsDiscardedAndARevokedOneStopsWritingAtOnce() {
        StreamBuilder b = new StreamBuilder();
        b.put(1, PUT_ADDRESS, bytes(1000, 7));
        b.frame(FrameKind.FLUSH, 2, new byte[0]);
        MemorySegment stream = b.build();

        Recorder refused = new Recorder();
        refused.grantPuts = false;
        parser().feed(stream, 0, stream.byteSize(), refused);
        assertThat(refused.events).containsExactly("put 1 @1000 +1000", "putDone 1 false", "FLUSH 2 ");
        assertThat(refused.putWindow.asSlice(0, 1000).toArray(ValueLayout.JAVA_BYTE)).containsOnly(0);

        Recorder revoked = new Recorder();
        FrameParser p = parser();
        long half = FrameHeader.BYTES + RmaRequest.BYTES + 400;
        p.feed(stream, 0, half, revoked);
        revoked.granted = false; // the grant is revoked while the put's data is arriving
        p.feed(stream, half, stream.byteSize() - half, revoked);
        assertThat(revoked.events).containsExactly("put 1 @1000 +1000", "putDone 1 false", "FLUSH 2 ");
        assertThat(revoked.putWindow.get(ValueLayout.JAVA_BYTE, 399)).isEqualTo(bytes(1000, 7)[399]);
        assertThat(revoked.putWindow.asSlice(400, 600).toArray(ValueLayout.JAVA_BYTE)).containsOnly(0);
    }

    @Test
    void feedFrameStopsAfterEachFrameSoTheCallerCanPause() {
        StreamBuilder b = new StreamBuilder();
        for (int i = 0; i < 5; i++) {
            b.frame(FrameKind.FLUSH, i, new byte[0]);
        }
        MemorySegment stream = b.build();
        Recorder r = new Recorder();
        FrameParser p = parser();
        long at = 0;
        int calls = 0;
        while (at < stream.byteSize()) {
            at += p.feedFrame(stream, at, stream.byteSize() - at, r);
            calls++;
            assertThat(r.events).hasSize(calls);
        }
        assertThat(calls).isEqualTo(5);
    }

    @Test
    void headerAndRequestLayoutsHaveTheDocumentedSizes() {
        assertThat(FrameHeader.BYTES).isEqualTo(16);
        assertThat(RmaRequest.BYTES).isEqualTo(40);
    }
}
