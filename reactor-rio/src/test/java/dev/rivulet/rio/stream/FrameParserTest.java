package dev.rivulet.rio.stream;

import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.memory.NativeRegistration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A byte stream cut anywhere parses into the same frames. */
class FrameParserTest {

    private final MemoryDomain memory = new MemoryDomain("test",
            (segment, access, key) -> new NativeRegistration(key, segment.address(), MemorySegment.NULL, null, null));
    private final Arena arena = Arena.ofConfined();

    private record Frame(int kind, long tag, byte[] payload) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Frame f && f.kind == kind && f.tag == tag && Arrays.equals(f.payload, payload);
        }

        @Override
        public int hashCode() {
            return kind * 31 + Long.hashCode(tag);
        }
    }

    @AfterEach
    void close() {
        arena.close();
        memory.close();
    }

    private static List<Frame> sample() {
        List<Frame> frames = new ArrayList<>();
        int[] sizes = {0, 1, 7, 16, 17, 40, 300, 0, 2, 4096};
        for (int i = 0; i < sizes.length; i++) {
            byte[] p = new byte[sizes[i]];
            for (int j = 0; j < p.length; j++) {
                p[j] = (byte) (i * 17 + j);
            }
            frames.add(new Frame(1 + i % FrameKind.MAX, 0x0123_4567_89ab_cdefL + i, p));
        }
        return frames;
    }

    private MemorySegment encode(List<Frame> frames) {
        long size = frames.stream().mapToLong(f -> FrameHeader.BYTES + f.payload.length).sum();
        MemorySegment s = arena.allocate(size);
        long at = 0;
        for (Frame f : frames) {
            FrameHeader.write(s, at, f.kind, f.tag, f.payload.length);
            at += FrameHeader.BYTES;
            MemorySegment.copy(f.payload, 0, s, ValueLayout.JAVA_BYTE, at, f.payload.length);
            at += f.payload.length;
        }
        return s;
    }

    private List<Frame> parse(MemorySegment stream, long... cuts) {
        List<Frame> out = new ArrayList<>();
        FrameParser p = new FrameParser(memory::allocate, 1 << 20);
        FrameParser.Sink sink = (kind, tag, payload) -> {
            byte[] bytes = payload == null ? new byte[0] : payload.toArray();
            if (payload != null) {
                payload.release();
            }
            out.add(new Frame(kind, tag, bytes));
        };
        long from = 0;
        for (long cut : cuts) {
            p.feed(stream, from, cut - from, sink);
            from = cut;
        }
        p.feed(stream, from, stream.byteSize() - from, sink);
        assertThat(p.atFrameBoundary()).isTrue();
        return out;
    }

    @Test
    void splitAtEveryByteBoundaryParsesIdentically() {
        List<Frame> frames = sample();
        MemorySegment stream = encode(frames);
        assertThat(parse(stream)).isEqualTo(frames);
        for (long cut = 0; cut <= stream.byteSize(); cut++) {
            assertThat(parse(stream, cut)).as("cut at %d", cut).isEqualTo(frames);
        }
        assertThat(memory.buffers()).isNotNull();
    }

    @Test
    void oneByteChunksParseIdentically() {
        List<Frame> frames = sample();
        MemorySegment stream = encode(frames);
        long[] cuts = new long[(int) stream.byteSize()];
        for (int i = 0; i < cuts.length; i++) {
            cuts[i] = i;
        }
        assertThat(parse(stream, cuts)).isEqualTo(frames);
    }

    /**
     * As a scatter receive delivers a stream: whenever a payload is incomplete, the next chunk's first bytes are
     * written straight into {@link FrameParser#payloadRemainder()} (at most {@code direct} of them) and the rest
     * is fed through the receive buffer; the frames are the same, and the remainder never reaches past the payload.
     */
    @Test
    void payloadRestReceivedStraightIntoItsBufferParsesIdentically() {
        List<Frame> frames = sample();
        MemorySegment stream = encode(frames);
        for (int chunk : new int[] {1, 5, 64, 1000, 5000}) {
            List<Frame> out = new ArrayList<>();
            FrameParser p = new FrameParser(memory::allocate, 1 << 20);
            FrameParser.Sink sink = (kind, tag, payload) -> {
                out.add(new Frame(kind, tag, payload == null ? new byte[0] : payload.toArray()));
                if (payload != null) {
                    payload.release();
                }
            };
            long at = 0;
            while (at < stream.byteSize()) {
                long n = Math.min(chunk, stream.byteSize() - at);
                int missing = p.payloadRemaining();
                if (missing > 0) {
                    MemorySegment rest = p.payloadRemainder();
                    assertThat(rest.byteSize()).isEqualTo(missing);
                    int direct = (int) Math.min(n, missing);
                    MemorySegment.copy(stream, at, rest, 0, direct);
                    p.filled(direct, sink);
                    at += direct;
                    n -= direct;
                }
                p.feed(stream, at, n, sink);
                at += n;
            }
            assertThat(p.atFrameBoundary()).isTrue();
            assertThat(out).as("chunks of %d", chunk).isEqualTo(frames);
        }
        FrameParser idle = new FrameParser(memory::allocate, 1 << 20);
        assertThat(idle.payloadRemaining()).isZero();
        assertThatThrownBy(() -> idle.filled(1, (k, t, b) -> { })).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void malformedHeadersAreProtocolViolations() {
        MemorySegment s = arena.allocate(FrameHeader.BYTES);
        FrameHeader.write(s, 0, 99, 1, 0);
        assertThatThrownBy(() -> parse(s)).isInstanceOf(CreditProtocolException.class);
        FrameHeader.write(s, 0, FrameKind.MESSAGE, 1, 2 << 20);
        assertThatThrownBy(() -> parse(s)).isInstanceOf(CreditProtocolException.class)
                .hasMessageContaining("exceeds");
        FrameHeader.write(s, 0, FrameKind.MESSAGE, 1, 0);
        s.set(ValueLayout.JAVA_BYTE, 15, (byte) 1);
        assertThatThrownBy(() -> parse(s)).isInstanceOf(CreditProtocolException.class);
    }

    @Test
    void headerAndRequestLayoutsHaveTheDocumentedSizes() {
        assertThat(FrameHeader.BYTES).isEqualTo(16);
        assertThat(RmaRequest.BYTES).isEqualTo(40);
    }
}
