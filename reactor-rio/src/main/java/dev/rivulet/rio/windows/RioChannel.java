package dev.rivulet.rio.windows;

import dev.rivulet.rio.stream.StreamChannel;
import dev.rivulet.rio.stream.ChannelUser;
import dev.rivulet.rio.stream.StreamWire;
import dev.rivulet.rio.windows.sys.RioBuf;
import dev.rivulet.rio.windows.sys.RioFunctions;
import dev.rivulet.rio.windows.sys.WinErrorException;
import dev.rivulet.rio.windows.sys.WinsockConstants;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One registered-I/O TCP socket: the {@link StreamChannel} of Windows RIO, under the same {@link StreamWire} as
 * io_uring. The staging and receive buffers are registered once with {@code RIORegisterBuffer}; a large payload
 * sent from a pooled message buffer is registered for the duration of its send (RIO sends only from registered
 * buffers, and the pool's slabs are not), then deregistered on completion. One send and one receive are
 * outstanding at a time, as the wire posts them.
 *
 * <p>Compiled and reviewed against the documented API, not yet run on Windows (see docs/rio.md).
 */
final class RioChannel implements StreamChannel {

    private final RioLoop loop;
    private final RioFunctions rio;
    private final long socket;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment staging;
    private final MemorySegment receive;
    private final MemorySegment stagingId;
    private final MemorySegment receiveId;
    /** RIO_BUF descriptors: [0] for the send, [1] for the receive. */
    private final MemorySegment bufs;
    private MemorySegment requestQueue;
    private MemorySegment payloadId;
    private int payloadToken;
    private ChannelUser wire;
    private int id;
    private boolean released;

    RioChannel(RioLoop loop, long socket, int stagingBytes, int receiveBytes) {
        this.loop = loop;
        this.rio = loop.rio();
        this.socket = socket;
        this.staging = arena.allocate(stagingBytes, 4096);
        this.receive = arena.allocate(receiveBytes, 4096);
        this.stagingId = rio.registerBuffer(staging);
        this.receiveId = rio.registerBuffer(receive);
        this.bufs = arena.allocate(RioBuf.LAYOUT, 2);
    }

    /** On the loop thread: creates the request queue (one send, one receive outstanding) and starts receiving. */
    @Override
    public void attach(ChannelUser w) {
        this.wire = w;
        this.id = loop.add(this);
        this.requestQueue = rio.createRequestQueue(socket, 1, 1, 1, 1, loop.completionQueue(),
                loop.completionQueue(), id);
        w.start();
    }

    void onCompletion(int token, int result) {
        if (payloadId != null && token == payloadToken) {
            rio.deregisterBuffer(payloadId);
            payloadId = null;
        }
        wire.onCompletion(token, result, 0); // RIO has no zero-copy notifications: a completion frees the buffer
    }

    @Override
    public MemorySegment stagingBuffer() {
        return staging;
    }

    @Override
    public MemorySegment receiveBuffer() {
        return receive;
    }

    @Override
    public boolean postSend(int token, MemorySegment source, long sourceOffset, int length, boolean staged) {
        MemorySegment bytes = source.asSlice(sourceOffset, length);
        MemorySegment buffer = stagingId;
        int offset = (int) (bytes.address() - staging.address());
        if (!staged) {
            payloadId = rio.registerBuffer(bytes);
            payloadToken = token;
            buffer = payloadId;
            offset = 0;
        }
        RioBuf.set(bufs, 0, buffer, offset, (int) bytes.byteSize());
        int error = rio.send(requestQueue, bufs.asSlice(0, RioBuf.BYTE_SIZE), 1, 0, Integer.toUnsignedLong(token));
        if (error != 0) {
            if (!staged) {
                rio.deregisterBuffer(payloadId);
                payloadId = null;
            }
            if (error == WinsockConstants.WSAENOBUFS) {
                return false;
            }
            throw new WinErrorException("RIOSend", error);
        }
        return true;
    }

    @Override
    public boolean postReceive(int token, MemorySegment into) {
        RioBuf.set(bufs, 1, receiveId, (int) (into.address() - receive.address()), (int) into.byteSize());
        int error = rio.receive(requestQueue, bufs.asSlice(RioBuf.BYTE_SIZE, RioBuf.BYTE_SIZE), 1, 0,
                Integer.toUnsignedLong(token));
        if (error == WinsockConstants.WSAENOBUFS) {
            return false;
        }
        if (error != 0) {
            throw new WinErrorException("RIOReceive", error);
        }
        return true;
    }

    @Override
    public void shutdown(boolean both) {
        try {
            loop.ws().shutdown(socket, both ? WinsockConstants.SD_BOTH : WinsockConstants.SD_SEND);
        } catch (WinErrorException e) {
            // WSAENOTCONN: the peer is gone already
        }
    }

    @Override
    public void release() {
        if (released) {
            return;
        }
        released = true;
        loop.remove(id);
        loop.ws().closeSocket(socket); // also frees the request queue
        rio.deregisterBuffer(stagingId);
        rio.deregisterBuffer(receiveId);
        arena.close();
    }

    @Override
    public String describe(int error) {
        return WinErrorException.name(error);
    }

    @Override
    public String provider() {
        return RioTransportProvider.NAME;
    }
}
