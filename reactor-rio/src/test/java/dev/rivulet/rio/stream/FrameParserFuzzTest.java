package dev.rivulet.rio.stream;

import dev.rivulet.core.internal.Internals;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.memory.NativeRegistration;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The io_uring stream parser on bytes a peer controls completely, cut into chunks the way a socket may hand them
 * over, and consumed by every path the transport uses: whole chunks ({@code feed}), one frame at a time under
 * backpressure ({@code feedFrame}), and payloads received straight into their destination ({@code filled}).
 *
 * <p>Must hold for every input: the only failure is {@link CreditProtocolException}; however the stream is cut and
 * consumed, and whether a message's memory is given in full on its header or grows as its bytes arrive (as for a peer
 * beyond its receive budget), the frames and the failure are the same as when it arrives in one piece; no message
 * buffer is asked
 * for beyond its kind's limit or without a credit; a put writes only inside the slice its grant gave (guard bytes
 * around the window stay untouched), also when the grant is revoked in the middle; and every message buffer is
 * released once the parser is closed.
 */
class FrameParserFuzzTest {

    private static final long MAX_MESSAGE = 4096;
    private static final long MAX_BATCH = 1024;
    private static final long MAX_RMA = 4096;
    private static final long WINDOW_ADDRESS = 0x1000;
    private static final int WINDOW = 1024;
    private static final int GUARD = 64;
    private static final byte CANARY = (byte) 0xA5;

    private static final MemoryDomain MEMORY = Internals.memory().newDomain("fuzz",
            (segment, access, key) -> new NativeRegistration(key, segment.address(), MemorySegment.NULL, null, null));

    @FuzzTest(maxDuration = "30s")
    void hostileStream(FuzzedDataProvider data) {
        long cuts = data.consumeLong();
        int credits = data.consumeInt(0, 6);
        int revokeAt = data.consumeInt(0, 12);
        byte[] stream = data.consumeRemainingAsBytes();
        long baseline = MEMORY.buffers().outstanding();

        Run whole = new Run(credits, Integer.MAX_VALUE, false);
        whole.feedWhole(stream);
        Run chunked = new Run(credits, Integer.MAX_VALUE, true);
        chunked.feedChunked(stream, new SplittableRandom(cuts));
        assertThat(chunked.events).as("frames whatever the cuts and the buffers' growth").isEqualTo(whole.events);
        Run revoking = new Run(credits, revokeAt, false);
        revoking.feedChunked(stream, new SplittableRandom(~cuts));

        for (Run r : List.of(whole, chunked, revoking)) {
            r.parser.close();
            r.checkGuards();
        }
        assertThat(MEMORY.buffers().outstanding()).as("message buffers released").isEqualTo(baseline);
    }

    /** One parser with a sink that plays the connection's part: credits, a granted window, gets awaiting answers. */
    private static final class Run implements FrameParser.Sink {
        final FrameParser parser = new FrameParser(MAX_MESSAGE, MAX_BATCH, MAX_RMA);
        final List<String> events = new ArrayList<>();
        private final Arena arena = Arena.ofAuto();
        private final MemorySegment guarded = arena.allocate(WINDOW + 2L * GUARD);
        private final MemorySegment window = guarded.asSlice(GUARD, WINDOW);
        private final MemorySegment getDestination = arena.allocate(MAX_RMA);
        private final int revokeAt;
        /** Whether a message's memory grows as its bytes arrive, from a 64-byte first piece. */
        private final boolean staged;
        private int credits;
        private int grantChecks;

        Run(int credits, int revokeAt, boolean staged) {
            this.credits = credits;
            this.revokeAt = revokeAt;
            this.staged = staged;
            guarded.fill(CANARY);
            window.fill((byte) 0);
        }

        void feedWhole(byte[] stream) {
            try {
                parser.feed(MemorySegment.ofArray(stream), 0, stream.length, this);
            } catch (CreditProtocolException e) {
                events.add("broken: " + e.getMessage());
            }
        }

        /** Random cuts, each chunk consumed by a random one of the transport's paths. */
        void feedChunked(byte[] stream, SplittableRandom cuts) {
            MemorySegment s = MemorySegment.ofArray(stream);
            long pos = 0;
            try {
                while (pos < stream.length) {
                    long n = Math.min(stream.length - pos, 1 + cuts.nextInt(64));
                    switch (cuts.nextInt(3)) {
                        case 0 -> {
                            parser.feed(s, pos, n, this);
                            pos += n;
                        }
                        case 1 -> {
                            int used = parser.feedFrame(s, pos, n, this);
                            assertThat(used).isBetween(0, (int) n);
                            pos += used;
                        }
                        default -> {
                            if (parser.payloadRemaining() > 0 && parser.mayReceiveDirect(this)) {
                                int direct = (int) Math.min(n, parser.payloadRemaining());
                                MemorySegment into = parser.payloadTarget().asSlice(parser.payloadFilled(), parser.payloadRemaining());
                                assertThat(into.byteSize()).isEqualTo(parser.payloadRemaining());
                                MemorySegment.copy(s, pos, into, 0, direct);
                                parser.filled(direct, this);
                                pos += direct;
                            } else {
                                parser.feed(s, pos, n, this);
                                pos += n;
                            }
                        }
                    }
                }
            } catch (CreditProtocolException e) {
                events.add("broken: " + e.getMessage());
            }
        }

        void checkGuards() {
            for (long i = 0; i < GUARD; i++) {
                assertThat(guarded.get(ValueLayout.JAVA_BYTE, i)).as("guard before the window").isEqualTo(CANARY);
                assertThat(guarded.get(ValueLayout.JAVA_BYTE, GUARD + WINDOW + i)).as("guard after the window")
                        .isEqualTo(CANARY);
            }
        }

        @Override
        public Buffer messageBuffer(long word, int length) {
            int type = ControlWord.type(word);
            assertThat(type).isIn(ControlWord.DATA, ControlWord.BATCH);
            assertThat((long) length).as("within the kind's limit")
                    .isBetween(0L, type == ControlWord.DATA ? MAX_MESSAGE : MAX_BATCH);
            if (credits <= 0) {
                throw new CreditProtocolException("no credit");
            }
            credits--;
            if (staged && length > 64) {
                return MEMORY.allocate(64);
            }
            return MEMORY.allocate(Math.max(1, length)).length(length);
        }

        @Override
        public Buffer growMessage(int filled, int length) {
            assertThat(staged).as("only a staged message grows").isTrue();
            assertThat(filled).isBetween(64, length - 1);
            return MEMORY.allocate((int) Math.min(length, 2L * filled));
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
            long offset = RmaRequest.address(request) - WINDOW_ADDRESS;
            boolean inside = offset >= 0 && offset <= WINDOW && dataLength <= WINDOW - offset;
            events.add("put " + id + " +" + dataLength + (inside ? "" : " refused"));
            return inside ? window.asSlice(offset, dataLength) : null;
        }

        @Override
        public boolean putStillGranted() {
            return ++grantChecks < revokeAt;
        }

        @Override
        public void putDone(long id, boolean applied) {
            events.add("putDone " + id + " " + applied + (applied ? " " + hex(window) : ""));
        }

        @Override
        public void request(int kind, long id, MemorySegment request) {
            assertThat(request.byteSize()).isEqualTo(RmaRequest.BYTES);
            events.add(FrameKind.name(kind) + " " + id + " " + hex(request));
        }

        @Override
        public MemorySegment getResponseTarget(long id, long length) {
            if ((id & 1) == 0) {
                throw new CreditProtocolException("no get " + id + " awaits an answer");
            }
            assertThat(length).isBetween(0L, MAX_RMA);
            return getDestination.asSlice(0, length);
        }

        @Override
        public void frame(int kind, long tag, MemorySegment payload) {
            String what = kind == FrameKind.GET_RESP ? "" : hex(payload);
            events.add(FrameKind.name(kind) + " " + tag + " " + what);
        }

        private static String hex(MemorySegment s) {
            return HexFormat.of().formatHex(s.toArray(ValueLayout.JAVA_BYTE));
        }
    }
}
