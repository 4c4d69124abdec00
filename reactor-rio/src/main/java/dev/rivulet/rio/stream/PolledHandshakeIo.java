package dev.rivulet.rio.stream;

import dev.rivulet.core.handshake.HandshakeIo;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketTimeoutException;

/**
 * The connection handshake's byte channel over a native socket before the socket joins its completion machinery (an
 * io_uring ring, a Registered I/O request queue): every read and write first waits with the system's poll for at
 * most what is left until the deadline ({@link PollDeadline}), then moves what the socket takes or has, so a peer
 * that trickles its bytes (or sends none) is cut off when the handshake's time is up, whichever call it stalls.
 * Short-lived: used by one thread for one handshake; its scratch memory is freed with each call. A subclass binds
 * the system's poll, send and receive.
 */
public abstract class PolledHandshakeIo implements HandshakeIo {

    private final long deadlineNanos;
    private final MemoryLayout pollfdLayout;
    private final int readable;
    private final int writable;

    /**
     * @param deadlineNanos on the {@link System#nanoTime()} clock
     * @param pollfdLayout  the layout of the one entry a poll takes ({@code struct pollfd}, {@code WSAPOLLFD})
     * @param readable      the poll events that mean "bytes to read"
     * @param writable      the poll events that mean "room to write"
     */
    protected PolledHandshakeIo(long deadlineNanos, MemoryLayout pollfdLayout, int readable, int writable) {
        this.deadlineNanos = deadlineNanos;
        this.pollfdLayout = pollfdLayout;
        this.readable = readable;
        this.writable = writable;
    }

    /** Polls the socket for {@code events} for at most {@code timeoutMillis}: non-zero when it reported something. */
    protected abstract int poll(MemorySegment pollfd, int events, int timeoutMillis);

    /** Sends from the start of {@code bytes}: how many the socket took, 0 when it took none this time. */
    protected abstract long send(MemorySegment bytes) throws IOException;

    /** Receives into the start of {@code into}: how many came, 0 when none came this time, -1 at end of stream. */
    protected abstract int receive(MemorySegment into) throws IOException;

    @Override
    public void write(byte[] bytes) throws IOException {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment out = scratch.allocateFrom(ValueLayout.JAVA_BYTE, bytes);
            MemorySegment pollfd = scratch.allocate(pollfdLayout);
            long done = 0;
            while (done < bytes.length) {
                await(pollfd, writable);
                done += send(out.asSlice(done));
            }
        }
    }

    @Override
    public void readFully(byte[] into, int off, int len) throws IOException {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment in = scratch.allocate(Math.max(1, len));
            MemorySegment pollfd = scratch.allocate(pollfdLayout);
            int done = 0;
            while (done < len) {
                await(pollfd, readable);
                int n = receive(in.asSlice(done, len - done));
                if (n < 0) {
                    throw new EOFException("peer closed the connection during the handshake");
                }
                MemorySegment.copy(in, ValueLayout.JAVA_BYTE, done, into, off + done, n);
                done += n;
            }
        }
    }

    /** Waits until the socket is ready for {@code events}, an error or hang-up is pending, or the deadline passed. */
    private void await(MemorySegment pollfd, int events) throws SocketTimeoutException {
        if (!PollDeadline.await(deadlineNanos, millis -> poll(pollfd, events, millis))) {
            throw new SocketTimeoutException("handshake deadline passed");
        }
    }
}
