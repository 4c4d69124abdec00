package dev.rivulet.rio.shm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;

/**
 * What one established connection holds: the peer's pid, the set-up socket (kept open for the connection's life:
 * its end of stream is how a dead peer is noticed), and this side's mapping of the shared file with its views: the
 * ring and pool this side writes, the ring and pool it reads, both doorbells and both heartbeat counters.
 *
 * <p>The file itself is already unlinked by the time a connection exists; the mapping keeps its pages, and closing
 * the connection unmaps them, after which the kernel frees them once the peer has unmapped too.
 */
final class ShmConnection {

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    final SocketChannel socket;
    final int side;
    final long peerPid;
    final ConnectionLayout layout;
    /** Whether this process may copy to and from the peer's memory ({@code process_vm_*} permitted). */
    final boolean reachesPeer;
    final int peerMaxMessage;
    final int peerMaxRequests;

    final RingWriter out;
    final RingReader in;
    /** This side's ring as it lies in the file, header included. */
    final MemorySegment outRingRegion;
    final StagingPool outPool;
    final StagingPool inPool;
    final StagingPool.Writer poolOut;
    final StagingPool.Reader poolIn;
    final int outRingBytes;
    final int outPoolChunk;
    final Doorbell myBell;
    final Doorbell peerBell;
    private final MemorySegment myHeartbeat;
    private final MemorySegment peerHeartbeat;
    private final Arena arena;
    private final ByteBuffer probe = ByteBuffer.allocateDirect(64);
    private boolean closed;

    private ShmConnection(SocketChannel socket, int side, long peerPid, ConnectionLayout layout, Arena arena,
                          MemorySegment file, boolean reachesPeer, int peerMaxMessage, int peerMaxRequests) {
        this.socket = socket;
        this.side = side;
        this.peerPid = peerPid;
        this.layout = layout;
        this.arena = arena;
        this.reachesPeer = reachesPeer;
        this.peerMaxMessage = peerMaxMessage;
        this.peerMaxRequests = peerMaxRequests;
        int peer = 1 - side;
        RecordRing mine = ring(file, layout, side);
        RecordRing theirs = ring(file, layout, peer);
        this.out = new RingWriter(mine);
        this.outRingRegion = file.asSlice(layout.ringOffset(side), RecordRing.bytesFor(layout.ringBytes(side)));
        this.in = new RingReader(theirs);
        this.outRingBytes = mine.capacity;
        this.outPool = pool(file, layout, side);
        this.poolOut = outPool.new Writer();
        this.outPoolChunk = outPool.maxChunk();
        this.inPool = pool(file, layout, peer);
        this.poolIn = inPool.new Reader();
        this.myBell = new Doorbell(file.asSlice(layout.bellOffset(side), 4));
        this.peerBell = new Doorbell(file.asSlice(layout.bellOffset(peer), 4));
        this.myHeartbeat = file.asSlice(layout.heartbeatOffset(side), 8);
        this.peerHeartbeat = file.asSlice(layout.heartbeatOffset(peer), 8);
    }

    private static RecordRing ring(MemorySegment file, ConnectionLayout l, int side) {
        return new RecordRing(file.asSlice(l.ringOffset(side), RecordRing.bytesFor(l.ringBytes(side))),
                l.ringBytes(side));
    }

    private static StagingPool pool(MemorySegment file, ConnectionLayout l, int side) {
        return new StagingPool(file.asSlice(l.poolOffset(side), StagingPool.bytesFor(l.poolBytes(side))),
                l.poolBytes(side));
    }

    /** Maps {@code channel}'s file (already sized) and writes the control block: the accepting side's first step. */
    static MemorySegment mapNew(FileChannel channel, ConnectionLayout layout, Arena arena) throws IOException {
        MemorySegment file = channel.map(FileChannel.MapMode.READ_WRITE, 0, layout.totalBytes(), arena);
        file.set(ValueLayout.JAVA_LONG, 0, ConnectionLayout.MAGIC);
        return file;
    }

    /** Maps the peer's file, checking it carries the magic the creator wrote. */
    static MemorySegment mapExisting(FileChannel channel, ConnectionLayout layout, Arena arena) throws IOException {
        MemorySegment file = channel.map(FileChannel.MapMode.READ_WRITE, 0, layout.totalBytes(), arena);
        if (file.get(ValueLayout.JAVA_LONG, 0) != ConnectionLayout.MAGIC) {
            throw new IOException("the shared file does not start with the connection magic");
        }
        return file;
    }

    static ShmConnection of(SocketChannel socket, int side, long peerPid, ConnectionLayout layout, Arena arena,
                            MemorySegment file, boolean reachesPeer, int peerMaxMessage, int peerMaxRequests) {
        return new ShmConnection(socket, side, peerPid, layout, arena, file, reachesPeer, peerMaxMessage,
                peerMaxRequests);
    }

    /** Bumps this side's heartbeat counter (nothing else was published for a heartbeat interval). */
    void beat() {
        LONG.setRelease(myHeartbeat, 0L, (long) LONG.getOpaque(myHeartbeat, 0L) + 1);
    }

    /** The peer's heartbeat counter. */
    long peerBeats() {
        return (long) LONG.getAcquire(peerHeartbeat, 0L);
    }

    /**
     * Looks at the set-up socket without blocking: 0 while the peer holds its end open, -1 once it closed it (or its
     * process ended), 1 when it wrote something, which the protocol never does after set-up.
     */
    int checkSocket() {
        probe.clear();
        try {
            int n = socket.read(probe);
            return n < 0 ? -1 : n == 0 ? 0 : 1;
        } catch (IOException e) {
            return -1;
        }
    }

    /** Tells the peer this side is done: its next socket check reads end of stream. */
    void shutdownOutput() {
        try {
            socket.shutdownOutput();
        } catch (IOException e) {
            // the peer is gone already
        }
    }

    /** Unmaps the file and closes the socket; idempotent. Only when nothing touches the mapping any more. */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            socket.close();
        } catch (IOException e) {
            // nothing left to tell anyone
        }
        arena.close();
    }
}
