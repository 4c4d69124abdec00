package dev.rivulet.spring.buffer;

import dev.rivulet.core.memory.Buffer;
import org.jspecify.annotations.Nullable;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.PooledDataBuffer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;

/**
 * A {@link DataBuffer} over a pooled {@link Buffer} of registered memory, with Spring's read and write positions.
 *
 * <p><b>References.</b> A data buffer holds one reference to its pooled buffer and counts its own
 * {@link #retain()}s and {@link #release()}s, as Netty's buffers do: the last release gives the pooled buffer's
 * reference back. Counting here rather than on the pooled buffer lets the capacity grow by moving to a larger pooled
 * buffer without carrying other holders' references along. A {@link #slice} shares its parent's memory and count;
 * {@link #split} returns a data buffer with a reference of its own to the same pooled buffer.
 *
 * <p><b>Capacity.</b> Growing stays in the pooled buffer while it has room (pool buffers are rounded up to a size
 * class) and otherwise moves the bytes to a larger pooled buffer of the same domain, releasing the smaller one. A
 * slice's capacity is fixed, and a slice must not be used after its parent's capacity changed or its parent was
 * released.
 *
 * <p>Not thread-safe for concurrent reads and writes, as no Spring data buffer is; references may be counted from
 * any thread.
 */
public final class RegisteredDataBuffer implements PooledDataBuffer {

    /** Growth doubles up to here, then goes on in steps of this size (as Spring's own data buffers grow). */
    private static final int GROWTH_STEP = 4 * 1024 * 1024;

    private final RegisteredDataBufferFactory factory;
    /** For a slice: the data buffer whose memory and references it shares. Null for one holding its own reference. */
    private final @Nullable RegisteredDataBuffer parent;
    /** For a slice: where it starts in its parent. */
    private final int parentOffset;
    /** The pooled buffer this data buffer holds a reference to (a slice: its parent's at the time it was cut). */
    private Buffer buffer;
    /** This data buffer's bytes, {@code [0, capacity)}, within {@link #buffer} (unused by slices). */
    private MemorySegment memory;
    /**
     * Whether {@link #memory} starts at the pooled buffer's first byte and no other data buffer holds a part of it
     * (never {@link #split}): only then may it grow in place, and a payload take the pooled buffer as it is.
     */
    private boolean wholeBuffer;
    private final AtomicInteger references;
    private int capacity;
    private int readPosition;
    private int writePosition;

    /** A new data buffer holding {@code buffer}'s reference, of {@code capacity} bytes from its start. */
    RegisteredDataBuffer(RegisteredDataBufferFactory factory, Buffer buffer, int capacity) {
        this(factory, buffer, buffer.capacitySegment().asSlice(0, capacity), true, 0, 0);
    }

    private RegisteredDataBuffer(RegisteredDataBufferFactory factory, Buffer buffer, MemorySegment memory,
                                 boolean wholeBuffer, int readPosition, int writePosition) {
        this.factory = factory;
        this.parent = null;
        this.parentOffset = 0;
        this.buffer = buffer;
        this.memory = memory;
        this.wholeBuffer = wholeBuffer;
        this.references = new AtomicInteger(1);
        this.capacity = (int) memory.byteSize();
        this.readPosition = readPosition;
        this.writePosition = writePosition;
    }

    /** A slice of {@code parent}: {@code length} bytes from {@code offset}, all of them readable. */
    private RegisteredDataBuffer(RegisteredDataBuffer parent, int offset, int length) {
        this.factory = parent.factory;
        this.parent = parent;
        this.parentOffset = offset;
        this.buffer = parent.buffer;
        this.memory = parent.memory;
        this.wholeBuffer = false;
        this.references = parent.references;
        this.capacity = length;
        this.readPosition = 0;
        this.writePosition = length;
    }

    /** This data buffer's bytes {@code [0, capacity)}, after checking it still holds its memory. */
    private MemorySegment bytes() {
        if (references.get() <= 0) {
            throw new IllegalStateException("data buffer was released");
        }
        return parent == null ? memory : parent.bytes().asSlice(parentOffset, capacity);
    }

    @Override
    public RegisteredDataBufferFactory factory() {
        return factory;
    }

    @Override
    public int indexOf(IntPredicate predicate, int fromIndex) {
        MemorySegment bytes = bytes();
        for (int i = Math.max(fromIndex, 0); i < writePosition; i++) {
            if (predicate.test(bytes.get(ValueLayout.JAVA_BYTE, i))) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public int lastIndexOf(IntPredicate predicate, int fromIndex) {
        MemorySegment bytes = bytes();
        for (int i = Math.min(fromIndex, writePosition - 1); i >= 0; i--) {
            if (predicate.test(bytes.get(ValueLayout.JAVA_BYTE, i))) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public int readableByteCount() {
        return writePosition - readPosition;
    }

    @Override
    public int writableByteCount() {
        return capacity - writePosition;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    /**
     * Sets the capacity: growing keeps every byte (see the class comment for where), shrinking keeps the first
     * {@code newCapacity} bytes and moves positions beyond it back to it.
     */
    @Override
    @Deprecated
    public RegisteredDataBuffer capacity(int newCapacity) {
        if (newCapacity < 0) {
            throw new IllegalArgumentException("negative capacity " + newCapacity);
        }
        if (parent != null) {
            throw new UnsupportedOperationException("the capacity of a slice is fixed");
        }
        MemorySegment bytes = bytes();
        if (newCapacity > capacity) {
            if (wholeBuffer && newCapacity <= buffer.capacity()) {
                memory = buffer.capacitySegment().asSlice(0, newCapacity);
            } else {
                Buffer larger = factory.allocate(newCapacity);
                MemorySegment to = larger.capacitySegment();
                MemorySegment.copy(bytes, 0, to, 0, capacity);
                buffer.release();
                buffer = larger;
                memory = to.asSlice(0, newCapacity);
                wholeBuffer = true;
            }
        } else {
            memory = bytes.asSlice(0, newCapacity);
            readPosition = Math.min(readPosition, newCapacity);
            writePosition = Math.min(writePosition, newCapacity);
        }
        capacity = newCapacity;
        return this;
    }

    @Override
    @SuppressWarnings("deprecation")
    public RegisteredDataBuffer ensureWritable(int length) {
        if (length > writableByteCount()) {
            capacity(grownCapacity(Math.addExact(writePosition, length)));
        }
        return this;
    }

    /** At least {@code needed}: doubling from 64 bytes, then in steps of {@link #GROWTH_STEP}. */
    private int grownCapacity(int needed) {
        if (needed >= GROWTH_STEP) {
            long stepped = ((long) needed + GROWTH_STEP - 1) / GROWTH_STEP * GROWTH_STEP;
            return (int) Math.min(stepped, Integer.MAX_VALUE - 8);
        }
        int grown = Math.max(64, capacity);
        while (grown < needed) {
            grown <<= 1;
        }
        return grown;
    }

    @Override
    public int readPosition() {
        return readPosition;
    }

    @Override
    public RegisteredDataBuffer readPosition(int readPosition) {
        if (readPosition < 0 || readPosition > writePosition) {
            throw new IndexOutOfBoundsException(
                    "read position " + readPosition + " outside 0.." + writePosition + " (the write position)");
        }
        this.readPosition = readPosition;
        return this;
    }

    @Override
    public int writePosition() {
        return writePosition;
    }

    @Override
    public RegisteredDataBuffer writePosition(int writePosition) {
        if (writePosition < readPosition || writePosition > capacity) {
            throw new IndexOutOfBoundsException("write position " + writePosition + " outside " + readPosition
                    + " (the read position).." + capacity + " (the capacity)");
        }
        this.writePosition = writePosition;
        return this;
    }

    @Override
    public byte getByte(int index) {
        if (index < 0 || index >= writePosition) {
            throw new IndexOutOfBoundsException("index " + index + " outside 0.." + (writePosition - 1));
        }
        return bytes().get(ValueLayout.JAVA_BYTE, index);
    }

    @Override
    public byte read() {
        if (readPosition >= writePosition) {
            throw new IndexOutOfBoundsException("no readable byte left");
        }
        return bytes().get(ValueLayout.JAVA_BYTE, readPosition++);
    }

    @Override
    public RegisteredDataBuffer read(byte[] destination) {
        return read(destination, 0, destination.length);
    }

    @Override
    public RegisteredDataBuffer read(byte[] destination, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, destination.length);
        if (length > readableByteCount()) {
            throw new IndexOutOfBoundsException(length + " bytes asked for, " + readableByteCount() + " readable");
        }
        MemorySegment.copy(bytes(), ValueLayout.JAVA_BYTE, readPosition, destination, offset, length);
        readPosition += length;
        return this;
    }

    @Override
    public RegisteredDataBuffer write(byte b) {
        ensureWritable(1);
        bytes().set(ValueLayout.JAVA_BYTE, writePosition++, b);
        return this;
    }

    @Override
    public RegisteredDataBuffer write(byte[] source) {
        return write(source, 0, source.length);
    }

    @Override
    public RegisteredDataBuffer write(byte[] source, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, source.length);
        ensureWritable(length);
        MemorySegment.copy(source, offset, bytes(), ValueLayout.JAVA_BYTE, writePosition, length);
        writePosition += length;
        return this;
    }

    /** Writes the readable bytes of each of {@code buffers}, leaving their positions as they are. */
    @Override
    public RegisteredDataBuffer write(DataBuffer... buffers) {
        int total = 0;
        for (DataBuffer b : buffers) {
            total = Math.addExact(total, b.readableByteCount());
        }
        ensureWritable(total);
        for (DataBuffer b : buffers) {
            try (ByteBufferIterator readable = b.readableByteBuffers()) {
                readable.forEachRemaining(this::append);
            }
        }
        return this;
    }

    /** Writes the remaining bytes of each of {@code buffers}, leaving their positions as they are. */
    @Override
    public RegisteredDataBuffer write(ByteBuffer... buffers) {
        int total = 0;
        for (ByteBuffer b : buffers) {
            total = Math.addExact(total, b.remaining());
        }
        ensureWritable(total);
        for (ByteBuffer b : buffers) {
            append(b);
        }
        return this;
    }

    /** Copies {@code source}'s remaining bytes to the write position (room already ensured). */
    private void append(ByteBuffer source) {
        int n = source.remaining();
        MemorySegment.copy(MemorySegment.ofBuffer(source), 0, bytes(), writePosition, n);
        writePosition += n;
    }

    /**
     * A view of {@code length} bytes from {@code index}, all readable, sharing this data buffer's memory and
     * reference count (retain it to keep it past this one's release).
     */
    @Override
    public RegisteredDataBuffer slice(int index, int length) {
        Objects.checkFromIndexSize(index, length, capacity);
        bytes();
        return new RegisteredDataBuffer(this, index, length);
    }

    /**
     * Splits at {@code index}: the bytes before it are returned, a data buffer with a reference of its own to the
     * same pooled memory (release it too), and this one keeps the bytes from {@code index} on.
     */
    @Override
    public RegisteredDataBuffer split(int index) {
        Objects.checkIndex(index, capacity + 1);
        if (parent != null) {
            throw new UnsupportedOperationException("a slice cannot be split; split the buffer it was cut from");
        }
        MemorySegment bytes = bytes();
        RegisteredDataBuffer front = new RegisteredDataBuffer(factory, buffer.retain(), bytes.asSlice(0, index),
                false, Math.min(readPosition, index), Math.min(writePosition, index));
        memory = bytes.asSlice(index, capacity - index);
        capacity -= index;
        readPosition = Math.max(readPosition, index) - index;
        writePosition = Math.max(writePosition, index) - index;
        wholeBuffer = false;
        return front;
    }

    @Override
    @Deprecated
    public ByteBuffer asByteBuffer() {
        return asByteBuffer(readPosition, readableByteCount());
    }

    @Override
    @Deprecated
    public ByteBuffer asByteBuffer(int index, int length) {
        Objects.checkFromIndexSize(index, length, capacity);
        return bytes().asSlice(index, length).asByteBuffer();
    }

    @Override
    public ByteBuffer toByteBuffer(int index, int length) {
        Objects.checkFromIndexSize(index, length, capacity);
        ByteBuffer copy = ByteBuffer.allocateDirect(length);
        MemorySegment.copy(bytes(), index, MemorySegment.ofBuffer(copy), 0, length);
        return copy;
    }

    @Override
    public void toByteBuffer(int sourcePosition, ByteBuffer destination, int destinationPosition, int length) {
        Objects.checkFromIndexSize(sourcePosition, length, capacity);
        Objects.checkFromIndexSize(destinationPosition, length, destination.capacity());
        MemorySegment to = MemorySegment.ofBuffer(destination.duplicate().clear());
        MemorySegment.copy(bytes(), sourcePosition, to, destinationPosition, length);
    }

    /** One read-only view of the readable bytes, valid until this data buffer's capacity changes or it is released. */
    @Override
    public ByteBufferIterator readableByteBuffers() {
        return new SingleByteBuffer(bytes().asSlice(readPosition, readableByteCount()).asByteBuffer()
                .asReadOnlyBuffer());
    }

    /** One view of the writable bytes, valid until this data buffer's capacity changes or it is released. */
    @Override
    public ByteBufferIterator writableByteBuffers() {
        return new SingleByteBuffer(bytes().asSlice(writePosition, writableByteCount()).asByteBuffer());
    }

    @Override
    public String toString(int index, int length, Charset charset) {
        Objects.checkFromIndexSize(index, length, capacity);
        byte[] copy = bytes().asSlice(index, length).toArray(ValueLayout.JAVA_BYTE);
        return new String(copy, charset);
    }

    @Override
    public boolean isAllocated() {
        return references.get() > 0;
    }

    @Override
    public RegisteredDataBuffer retain() {
        references.updateAndGet(n -> {
            if (n <= 0) {
                throw new IllegalStateException("data buffer was released");
            }
            return n + 1;
        });
        return this;
    }

    @Override
    public RegisteredDataBuffer touch(Object hint) {
        return this;
    }

    /** Drops a reference; the last one gives the pooled buffer back (a slice: its parent's last). */
    @Override
    public boolean release() {
        int left = references.updateAndGet(n -> {
            if (n <= 0) {
                throw new IllegalStateException("data buffer released more often than retained");
            }
            return n - 1;
        });
        if (left == 0) {
            root().buffer.release();
            return true;
        }
        return false;
    }

    private RegisteredDataBuffer root() {
        return parent == null ? this : parent.root();
    }

    /**
     * The readable bytes as a pooled buffer holding one reference, for {@code Payload.of(Buffer)}, and this data
     * buffer released: without a copy the pooled buffer itself, when this data buffer is its only holder, starts at
     * its first byte and was not read from; otherwise a new pooled buffer with a copy of the bytes.
     */
    public Buffer toPayloadBuffer() {
        if (parent == null && wholeBuffer && readPosition == 0 && references.compareAndSet(1, 0)) {
            return buffer.length(writePosition);
        }
        int n = readableByteCount();
        Buffer copy = factory.allocate(n);
        try {
            MemorySegment.copy(bytes(), readPosition, copy.capacitySegment(), 0, n);
        } catch (RuntimeException e) {
            copy.release();
            throw e;
        } finally {
            release();
        }
        return copy;
    }

    @Override
    public String toString() {
        return "RegisteredDataBuffer[r" + readPosition + ", w" + writePosition + ", c" + capacity + "]";
    }

    /** The iterator over one {@link ByteBuffer} that this data buffer's bytes always fit in. */
    private static final class SingleByteBuffer implements ByteBufferIterator {

        private @Nullable ByteBuffer next;

        SingleByteBuffer(ByteBuffer only) {
            this.next = only;
        }

        @Override
        public boolean hasNext() {
            return next != null;
        }

        @Override
        public ByteBuffer next() {
            ByteBuffer b = next;
            if (b == null) {
                throw new NoSuchElementException();
            }
            next = null;
            return b;
        }

        @Override
        public void close() {
            // views only: nothing to give back
        }
    }
}
