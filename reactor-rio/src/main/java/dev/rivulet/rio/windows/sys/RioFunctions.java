package dev.rivulet.rio.windows.sys;

import static dev.rivulet.rio.windows.sys.RioConstants.RIO_CORRUPT_CQ;
import static dev.rivulet.rio.windows.sys.RioConstants.RIO_INVALID_BUFFERID;
import static dev.rivulet.rio.windows.sys.RioConstants.RIO_INVALID_CQ;
import static dev.rivulet.rio.windows.sys.RioConstants.RIO_INVALID_RQ;

import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Typed invokers for the thirteen RIO functions, bound to the pointers of one {@link RioExtensionFunctionTable}
 * (obtained with {@link Ws2_32#rio(long)}). RIO has no symbols to look up: the only way in is that table.
 *
 * <p>RIO does no internal locking: calls on one request queue (its sends and receives) and dequeues from one
 * completion queue must be serialised by the caller; different queues need nothing. The data path returns status
 * codes instead of throwing, because "queue full" ({@code WSAENOBUFS}) is back-pressure, not an error; setup calls
 * throw {@link WinErrorException}.
 */
public final class RioFunctions {

    private static final Linker LINKER = Linker.nativeLinker();

    private final Ws2_32 owner;
    private final MethodHandle receive;
    private final MethodHandle receiveEx;
    private final MethodHandle send;
    private final MethodHandle sendEx;
    private final MethodHandle closeCompletionQueue;
    private final MethodHandle createCompletionQueue;
    private final MethodHandle createRequestQueue;
    private final MethodHandle dequeueCompletion;
    private final MethodHandle deregisterBuffer;
    private final MethodHandle notify;
    private final MethodHandle registerBuffer;
    private final MethodHandle resizeCompletionQueue;
    private final MethodHandle resizeRequestQueue;

    RioFunctions(Ws2_32 owner, MemorySegment table) {
        this.owner = owner;
        this.receive = bind(table, RioFunction.RIO_RECEIVE);
        this.receiveEx = bind(table, RioFunction.RIO_RECEIVE_EX);
        this.send = bind(table, RioFunction.RIO_SEND);
        this.sendEx = bind(table, RioFunction.RIO_SEND_EX);
        this.closeCompletionQueue = bind(table, RioFunction.RIO_CLOSE_COMPLETION_QUEUE);
        this.createCompletionQueue = bind(table, RioFunction.RIO_CREATE_COMPLETION_QUEUE);
        this.createRequestQueue = bind(table, RioFunction.RIO_CREATE_REQUEST_QUEUE);
        this.dequeueCompletion = bind(table, RioFunction.RIO_DEQUEUE_COMPLETION);
        this.deregisterBuffer = bind(table, RioFunction.RIO_DEREGISTER_BUFFER);
        this.notify = bind(table, RioFunction.RIO_NOTIFY);
        this.registerBuffer = bind(table, RioFunction.RIO_REGISTER_BUFFER);
        this.resizeCompletionQueue = bind(table, RioFunction.RIO_RESIZE_COMPLETION_QUEUE);
        this.resizeRequestQueue = bind(table, RioFunction.RIO_RESIZE_REQUEST_QUEUE);
    }

    @SuppressWarnings("restricted") // downcallHandle on the pointers WSAIoctl returned
    private static MethodHandle bind(MemorySegment table, RioFunction f) {
        MemorySegment pointer = RioExtensionFunctionTable.function(table, f);
        if (pointer.address() == 0) {
            throw new IllegalStateException("WSAIoctl left the " + f.cName() + " slot of the RIO table empty");
        }
        return f.setsLastError()
                ? LINKER.downcallHandle(pointer, f.descriptor(), WinErrors.CAPTURE_WSA)
                : LINKER.downcallHandle(pointer, f.descriptor());
    }

    // ---- Buffers ----------------------------------------------------------------------------------------------

    /**
     * {@code RIORegisterBuffer}: registers {@code buffer} (native memory that outlives the registration) and
     * returns its {@code RIO_BUFFERID}, to be sliced with {@link RioBuf}.
     */
    public MemorySegment registerBuffer(MemorySegment buffer) {
        owner.ensureOpen();
        if (!buffer.isNative() || buffer.byteSize() > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("RIO registers native buffers up to 4 GiB - 1: " + buffer);
        }
        MemorySegment state = WinErrors.state();
        MemorySegment id;
        try {
            id = (MemorySegment) registerBuffer.invokeExact(state, buffer, (int) buffer.byteSize());
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
        if (id.address() == RIO_INVALID_BUFFERID) {
            throw new WinErrorException("RIORegisterBuffer", WinErrors.wsaError(state));
        }
        return id;
    }

    /** {@code RIODeregisterBuffer}; no request using the buffer may still be outstanding. */
    public void deregisterBuffer(MemorySegment bufferId) {
        owner.ensureOpen();
        try {
            deregisterBuffer.invokeExact(bufferId);
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
    }

    // ---- Queues -----------------------------------------------------------------------------------------------

    /**
     * {@code RIOCreateCompletionQueue}: a CQ of {@code queueSize} entries, signalled as {@code notification}
     * (a {@link RioNotificationCompletion}) says, or polling-only with {@link MemorySegment#NULL}.
     */
    public MemorySegment createCompletionQueue(int queueSize, MemorySegment notification) {
        owner.ensureOpen();
        MemorySegment state = WinErrors.state();
        MemorySegment cq;
        try {
            cq = (MemorySegment) createCompletionQueue.invokeExact(state, queueSize, notification);
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
        if (cq.address() == RIO_INVALID_CQ) {
            throw new WinErrorException("RIOCreateCompletionQueue", WinErrors.wsaError(state));
        }
        return cq;
    }

    public void closeCompletionQueue(MemorySegment cq) {
        owner.ensureOpen();
        try {
            closeCompletionQueue.invokeExact(cq);
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
    }

    /**
     * {@code RIOCreateRequestQueue} for {@code socket}. The two data-buffer counts must be 1 (documented for
     * Windows 8 / Server 2012); the outstanding counts are charged against the CQs' capacity
     * ({@code WSAENOBUFS} if it is short).
     */
    public MemorySegment createRequestQueue(long socket, int maxOutstandingReceive, int maxReceiveDataBuffers,
                                            int maxOutstandingSend, int maxSendDataBuffers, MemorySegment receiveCq,
                                            MemorySegment sendCq, long socketContext) {
        owner.ensureOpen();
        MemorySegment state = WinErrors.state();
        MemorySegment rq;
        try {
            rq = (MemorySegment) createRequestQueue.invokeExact(state, socket, maxOutstandingReceive,
                    maxReceiveDataBuffers, maxOutstandingSend, maxSendDataBuffers, receiveCq, sendCq,
                    MemorySegment.ofAddress(socketContext));
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
        if (rq.address() == RIO_INVALID_RQ) {
            throw new WinErrorException("RIOCreateRequestQueue", WinErrors.wsaError(state));
        }
        return rq;
    }

    public void resizeCompletionQueue(MemorySegment cq, int queueSize) {
        owner.ensureOpen();
        MemorySegment state = WinErrors.state();
        int ok;
        try {
            ok = (int) resizeCompletionQueue.invokeExact(state, cq, queueSize);
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
        if (ok == 0) {
            throw new WinErrorException("RIOResizeCompletionQueue", WinErrors.wsaError(state));
        }
    }

    public void resizeRequestQueue(MemorySegment rq, int maxOutstandingReceive, int maxOutstandingSend) {
        owner.ensureOpen();
        MemorySegment state = WinErrors.state();
        int ok;
        try {
            ok = (int) resizeRequestQueue.invokeExact(state, rq, maxOutstandingReceive, maxOutstandingSend);
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
        if (ok == 0) {
            throw new WinErrorException("RIOResizeRequestQueue", WinErrors.wsaError(state));
        }
    }

    // ---- Data path: status codes, no exceptions ---------------------------------------------------------------------

    /**
     * {@code RIOSend(rq, bufs, count, flags, requestContext)}: 0 when queued, else the WSA error
     * ({@code WSAENOBUFS}: the RQ's send slots are all outstanding; reap and retry). {@code bufs} is an array of
     * {@code count} {@link RioBuf}s (RIO allows only 1 per request here) that must stay valid until completion.
     */
    public int send(MemorySegment rq, MemorySegment bufs, int count, int flags, long requestContext) {
        MemorySegment state = WinErrors.state();
        int ok;
        try {
            ok = (int) send.invokeExact(state, rq, bufs, count, flags, MemorySegment.ofAddress(requestContext));
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
        return ok != 0 ? 0 : WinErrors.wsaError(state);
    }

    /** {@code RIOReceive}, like {@link #send}; {@code RIO_MSG_WAITALL} is allowed here. */
    public int receive(MemorySegment rq, MemorySegment bufs, int count, int flags, long requestContext) {
        MemorySegment state = WinErrors.state();
        int ok;
        try {
            ok = (int) receive.invokeExact(state, rq, bufs, count, flags, MemorySegment.ofAddress(requestContext));
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
        return ok != 0 ? 0 : WinErrors.wsaError(state);
    }

    /** {@code RIOSendEx}: {@link #send} plus optional (NULL) RIO_BUFs for addresses, control data and flags. */
    public int sendEx(MemorySegment rq, MemorySegment bufs, int count, MemorySegment localAddress,
                      MemorySegment remoteAddress, MemorySegment controlContext, MemorySegment flagsBuf, int flags,
                      long requestContext) {
        MemorySegment state = WinErrors.state();
        int ok;
        try {
            ok = (int) sendEx.invokeExact(state, rq, bufs, count, localAddress, remoteAddress, controlContext,
                    flagsBuf, flags, MemorySegment.ofAddress(requestContext));
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
        return ok != 0 ? 0 : WinErrors.wsaError(state);
    }

    /** {@code RIOReceiveEx}, the receive counterpart of {@link #sendEx}. */
    public int receiveEx(MemorySegment rq, MemorySegment bufs, int count, MemorySegment localAddress,
                         MemorySegment remoteAddress, MemorySegment controlContext, MemorySegment flagsBuf, int flags,
                         long requestContext) {
        MemorySegment state = WinErrors.state();
        int ok;
        try {
            ok = (int) receiveEx.invokeExact(state, rq, bufs, count, localAddress, remoteAddress, controlContext,
                    flagsBuf, flags, MemorySegment.ofAddress(requestContext));
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
        return ok != 0 ? 0 : WinErrors.wsaError(state);
    }

    /**
     * {@code RIODequeueCompletion}: writes up to {@code arraySize} {@link RioResult}s into {@code results} and
     * returns how many (0 if none). A request's buffer and queue slot are released only once its result is
     * dequeued.
     *
     * @throws WinErrorException when the CQ reports {@code RIO_CORRUPT_CQ} (fatal for that CQ)
     */
    public int dequeueCompletion(MemorySegment cq, MemorySegment results, int arraySize) {
        int n;
        try {
            n = (int) dequeueCompletion.invokeExact(cq, results, arraySize);
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
        if (n == RIO_CORRUPT_CQ) {
            throw new WinErrorException("RIODequeueCompletion (RIO_CORRUPT_CQ)", WinsockConstants.WSAEINVAL);
        }
        return n;
    }

    /**
     * {@code RIONotify}: arms the CQ's one-shot notification; returns 0, {@code WSAEALREADY} (still armed) or
     * {@code WSAEINVAL}. Re-arm after every wake-up, after draining.
     */
    public int rioNotify(MemorySegment cq) { // not "notify": that name belongs to Object's monitor methods
        try {
            return (int) notify.invokeExact(cq);
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
    }
}
