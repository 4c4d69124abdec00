package dev.rivulet.spring.buffer;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Spring's {@link DataBuffer} contract (as Spring's own data buffers keep it) on registered memory, and that every
 * pooled buffer goes back: each test ends with none outstanding.
 */
class RegisteredDataBufferTest {

    private Transport transport;
    private MemoryDomain memory;
    private RegisteredDataBufferFactory factory;

    @BeforeEach
    void open() {
        transport = Transports.open("local", TransportConfig.defaults());
        memory = transport.memory();
        factory = new RegisteredDataBufferFactory(memory);
    }

    @AfterEach
    void close() {
        try {
            assertThat(memory.buffers().outstanding()).as("pooled buffers not given back").isZero();
        } finally {
            transport.dispose();
        }
    }

    private static String readAll(DataBuffer buffer) {
        byte[] bytes = new byte[buffer.readableByteCount()];
        buffer.read(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @Test
    void writesAndReadsMoveTheirPositions() {
        RegisteredDataBuffer buffer = factory.allocateBuffer(8);
        assertThat(buffer.capacity()).isEqualTo(8);
        buffer.write((byte) 'a').write(new byte[] {'b', 'c'});
        assertThat(buffer.writePosition()).isEqualTo(3);
        assertThat(buffer.readableByteCount()).isEqualTo(3);
        assertThat(buffer.writableByteCount()).isEqualTo(5);
        assertThat(buffer.read()).isEqualTo((byte) 'a');
        assertThat(buffer.readPosition()).isEqualTo(1);
        assertThat(readAll(buffer)).isEqualTo("bc");
        assertThat(buffer.readableByteCount()).isZero();
        assertThatThrownBy(buffer::read).isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(buffer.release()).isTrue();
    }

    @Test
    void positionsStayWithinEachOtherAndTheCapacity() {
        RegisteredDataBuffer buffer = factory.allocateBuffer(4);
        buffer.write(new byte[] {1, 2});
        assertThatThrownBy(() -> buffer.readPosition(3)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> buffer.readPosition(-1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> buffer.writePosition(5)).isInstanceOf(IndexOutOfBoundsException.class);
        buffer.readPosition(1);
        assertThatThrownBy(() -> buffer.writePosition(0)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> buffer.getByte(2)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(buffer.getByte(0)).isEqualTo((byte) 1);
        buffer.release();
    }

    @Test
    void writingPastTheCapacityGrowsItKeepingTheBytes() {
        RegisteredDataBuffer buffer = factory.allocateBuffer(4);
        byte[] big = new byte[10_000];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) i;
        }
        buffer.write(new byte[] {9, 9}).write(big);
        assertThat(buffer.capacity()).isGreaterThanOrEqualTo(10_002);
        assertThat(buffer.readableByteCount()).isEqualTo(10_002);
        byte[] back = new byte[10_002];
        buffer.read(back);
        assertThat(back[1]).isEqualTo((byte) 9);
        assertThat(back[10_001]).isEqualTo(big[9_999]);
        assertThat(memory.buffers().outstanding()).as("the smaller pooled buffer went back").isEqualTo(1);
        buffer.release();
    }

    @Test
    void ensureWritableLeavesRoomAndShrinkingClampsPositions() {
        RegisteredDataBuffer buffer = factory.allocateBuffer(2);
        buffer.ensureWritable(100);
        assertThat(buffer.writableByteCount()).isGreaterThanOrEqualTo(100);
        buffer.write("abcdef", StandardCharsets.UTF_8).readPosition(5);
        buffer.capacity(3);
        assertThat(buffer.capacity()).isEqualTo(3);
        assertThat(buffer.writePosition()).isEqualTo(3);
        assertThat(buffer.readPosition()).isEqualTo(3);
        assertThat(buffer.toString(0, 3, StandardCharsets.UTF_8)).isEqualTo("abc");
        buffer.release();
    }

    @Test
    void indexOfAndLastIndexOfSearchTheWrittenBytes() {
        RegisteredDataBuffer buffer = factory.allocateBuffer(16);
        buffer.write("a,b,c", StandardCharsets.UTF_8);
        assertThat(buffer.indexOf(b -> b == ',', 0)).isEqualTo(1);
        assertThat(buffer.indexOf(b -> b == ',', 2)).isEqualTo(3);
        assertThat(buffer.indexOf(b -> b == ',', 4)).isEqualTo(-1);
        assertThat(buffer.lastIndexOf(b -> b == ',', 15)).isEqualTo(3);
        assertThat(buffer.lastIndexOf(b -> b == ',', 2)).isEqualTo(1);
        assertThat(buffer.indexOf(b -> b == 'z', -3)).isEqualTo(-1);
        buffer.release();
    }

    @Test
    void aSliceSharesBytesAndReferences() {
        RegisteredDataBuffer buffer = factory.allocateBuffer(8);
        buffer.write("abcdef", StandardCharsets.UTF_8);
        DataBuffer slice = buffer.slice(1, 3);
        assertThat(slice.readPosition()).isZero();
        assertThat(slice.writePosition()).isEqualTo(3);
        assertThat(slice.toString(StandardCharsets.UTF_8)).isEqualTo("bcd");
        buffer.writePosition(1).write((byte) 'B');
        assertThat(slice.getByte(0)).isEqualTo((byte) 'B');
        assertThatThrownBy(() -> slice.ensureWritable(10)).isInstanceOf(UnsupportedOperationException.class);
        DataBufferUtils.retain(slice);
        assertThat(buffer.release()).isFalse();
        assertThat(buffer.isAllocated()).isTrue();
        assertThat(DataBufferUtils.release(slice)).isTrue();
        assertThat(buffer.isAllocated()).isFalse();
    }

    @Test
    void splitLeavesTwoIndependentBuffersEachToRelease() {
        RegisteredDataBuffer buffer = factory.allocateBuffer(8);
        buffer.write("abcdef", StandardCharsets.UTF_8).readPosition(1);
        RegisteredDataBuffer front = buffer.split(4);
        assertThat(front.capacity()).isEqualTo(4);
        assertThat(front.readPosition()).isEqualTo(1);
        assertThat(front.writePosition()).isEqualTo(4);
        assertThat(readAll(front)).isEqualTo("bcd");
        assertThat(buffer.capacity()).isEqualTo(4);
        assertThat(buffer.readPosition()).isZero();
        assertThat(buffer.writePosition()).isEqualTo(2);
        assertThat(readAll(buffer)).isEqualTo("ef");
        front.write("xyz", StandardCharsets.UTF_8); // grows into a pooled buffer of its own, the rest untouched
        assertThat(buffer.toString(0, 2, StandardCharsets.UTF_8)).isEqualTo("ef");
        assertThat(front.release()).isTrue();
        assertThat(buffer.release()).isTrue();
    }

    @Test
    void byteBufferViewsAndCopies() {
        RegisteredDataBuffer buffer = factory.allocateBuffer(8);
        buffer.write(ByteBuffer.wrap("hello".getBytes(StandardCharsets.UTF_8))).read();
        try (DataBuffer.ByteBufferIterator readable = buffer.readableByteBuffers()) {
            ByteBuffer only = readable.next();
            assertThat(StandardCharsets.UTF_8.decode(only).toString()).isEqualTo("ello");
            assertThat(readable.hasNext()).isFalse();
        }
        try (DataBuffer.ByteBufferIterator writable = buffer.writableByteBuffers()) {
            ByteBuffer room = writable.next();
            assertThat(room.remaining()).isEqualTo(3);
            room.put((byte) '!');
        }
        buffer.writePosition(6);
        ByteBuffer copy = buffer.toByteBuffer();
        assertThat(StandardCharsets.UTF_8.decode(copy).toString()).isEqualTo("ello!");
        ByteBuffer into = ByteBuffer.allocate(4);
        buffer.toByteBuffer(1, into, 1, 2);
        assertThat(into.position()).isZero();
        assertThat(into.get(1)).isEqualTo((byte) 'e');
        assertThat(into.get(2)).isEqualTo((byte) 'l');
        buffer.release();
    }

    @Test
    void writesOtherBuffersWithoutMovingThem() {
        DataBuffer heap = DefaultDataBufferFactory.sharedInstance.wrap("ab".getBytes(StandardCharsets.UTF_8));
        RegisteredDataBuffer other = factory.allocateBuffer(4);
        other.write("cd", StandardCharsets.UTF_8);
        RegisteredDataBuffer buffer = factory.allocateBuffer(1).write(heap, other);
        assertThat(buffer.toString(StandardCharsets.UTF_8)).isEqualTo("abcd");
        assertThat(heap.readableByteCount()).isEqualTo(2);
        other.release();
        buffer.release();
    }

    @Test
    void streamsReadAndWrite() throws IOException {
        RegisteredDataBuffer buffer = factory.allocateBuffer(2);
        try (OutputStream out = buffer.asOutputStream()) {
            out.write("streamed".getBytes(StandardCharsets.UTF_8));
        }
        try (InputStream in = buffer.asInputStream(true)) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("streamed");
        }
        assertThat(buffer.isAllocated()).as("released by the stream's close").isFalse();
    }

    @Test
    void joinMakesOneRegisteredBufferAndReleasesTheParts() {
        DataBuffer a = factory.allocateBuffer(4).write("ab", StandardCharsets.UTF_8);
        DataBuffer b = factory.wrap("cd".getBytes(StandardCharsets.UTF_8));
        DataBuffer joined = factory.join(List.of(a, b));
        assertThat(joined).isInstanceOf(RegisteredDataBuffer.class);
        assertThat(joined.toString(StandardCharsets.UTF_8)).isEqualTo("abcd");
        assertThat(((RegisteredDataBuffer) a).isAllocated()).isFalse();
        DataBufferUtils.release(joined);
    }

    @Test
    void retainAndReleaseCountReferencesAndUseAfterReleaseFails() {
        RegisteredDataBuffer buffer = factory.allocateBuffer(4);
        buffer.retain();
        assertThat(buffer.release()).isFalse();
        assertThat(buffer.release()).isTrue();
        assertThat(buffer.isAllocated()).isFalse();
        assertThatThrownBy(() -> buffer.write((byte) 1)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(buffer::release).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aFreshlyWrittenBufferBecomesAPayloadBufferWithoutACopy() {
        RegisteredDataBuffer buffer = factory.allocateBuffer(2048);
        buffer.write(new byte[1500]);
        long address = buffer.readableByteBuffers().next().isDirect() ? addressOf(buffer) : -1;
        Buffer handed = buffer.toPayloadBuffer();
        assertThat(handed.length()).isEqualTo(1500);
        assertThat(handed.address()).isEqualTo(address);
        assertThat(buffer.isAllocated()).as("its reference went with the pooled buffer").isFalse();
        handed.release();
    }

    @Test
    void aBufferReadFromIsCopiedIntoAPayloadBuffer() {
        RegisteredDataBuffer buffer = factory.allocateBuffer(8);
        buffer.write("xhello", StandardCharsets.UTF_8);
        buffer.read();
        Buffer handed = buffer.toPayloadBuffer();
        assertThat(handed.toUtf8()).isEqualTo("hello");
        assertThat(buffer.isAllocated()).isFalse();
        handed.release();
    }

    private static long addressOf(RegisteredDataBuffer buffer) {
        return java.lang.foreign.MemorySegment.ofBuffer(buffer.readableByteBuffers().next()).address();
    }
}
