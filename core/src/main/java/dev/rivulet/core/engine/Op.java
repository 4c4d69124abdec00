package dev.rivulet.core.engine;

import dev.rivulet.core.credit.BatchFraming;
import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.internal.MemoryAccess;
import dev.rivulet.core.loop.RejectableTask;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RegisteredSlice;
import dev.rivulet.core.memory.RemoteMemory;
import org.jspecify.annotations.Nullable;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

/**
 * One operation on its way from a subscriber to a wire and back. Created on the subscribing thread, then owned by
 * the endpoint's progress thread from the moment it is submitted until it is finished. Streaming sends reuse their
 * ops, so the steady-state send path allocates none.
 *
 * <p>Wires read the fields they need through the accessors and report completion with the op as context.
 */
public final class Op implements RejectableTask {

    private static final MemoryAccess MEMORY = Internals.memory();

    /** Receives the outcome; called on the progress thread. */
    interface Sink {
        void opCompleted(Op op, long value);

        void opFailed(Op op, Throwable error);
    }

    final EndpointEngine engine;
    OpKind kind;
    Buffer buffer;
    RegisteredSlice local;
    RemoteMemory remote;
    AtomicOp atomic;
    int width;
    long operand;
    long compare;
    Sink sink;
    ContextView context = Context.empty();
    long startNanos;
    boolean posted;
    private MemoryRegion pinnedLocal;
    /** The region of a send's {@link #body()}, pinned while the op is queued or posted. */
    private @Nullable MemoryRegion pinnedBody;
    private volatile boolean cancelled;
    /** Free for the wire: e.g. a native context slot index or a posting sequence number. */
    public long wireTag;
    /** For a coalescing carrier: the sends packed into its buffer, in order. */
    Op[] members;
    int memberCount;
    /** Messages packed in this op's {@link ControlWord#BATCH} frame; 0 when it carries one message as it is. */
    int batchRecords;
    /**
     * Set on the op that holds a claimed send's place in the pending FIFO ({@link ClaimedSends}): not an operation
     * itself, it stands for the items that stream has ready, which are encoded into frames once it reaches the head.
     */
    ClaimedSends<?> claims;
    /** For a piece of a put or get split by {@link RmaPieces}: the operation it is a piece of. */
    @Nullable Op whole;
    /** For a put or get split by {@link RmaPieces}: the bytes its pieces posted so far. */
    long piecedBytes;
    /** For a put or get split by {@link RmaPieces}: its pieces posted and not yet reported by the wire. */
    int piecesOut;
    /** For a put or get split by {@link RmaPieces}: whether it posts no further piece (it left the pending FIFO). */
    boolean piecesEnded;
    /** For a put or get split by {@link RmaPieces}: the first failure of its pieces. */
    @Nullable Throwable pieceFailure;

    Op(EndpointEngine engine) {
        this.engine = engine;
    }

    /** Submission: runs on the progress thread. */
    @Override
    public void run() {
        engine.dequeued(this);
    }

    /** The loop stopped before it ran this op: it fails, as one submitted to a closed loop does. */
    @Override
    public void rejected() {
        engine.rejected(this);
    }

    public OpKind kind() {
        return kind;
    }

    /**
     * The message of a {@link OpKind#SEND}, or its first part when it has a {@link #body()}: only a wire that
     * {@linkplain Wire#gathers() gathers} ever sees one with a body.
     */
    public Buffer buffer() {
        return buffer;
    }

    /** The second part of a send's message: its bytes follow {@link #buffer()}'s; null for a message in one piece. */
    public @Nullable Buffer body() {
        return buffer == null ? null : MEMORY.body(buffer);
    }

    /** A send's whole message length: {@link #buffer()} and {@link #body()} together. */
    public int messageLength() {
        Buffer b = body();
        return buffer.length() + (b == null ? 0 : b.length());
    }

    /** Local memory of a put (source) or get (destination). */
    public RegisteredSlice local() {
        return local;
    }

    /** Target of put, get and atomics. */
    public RemoteMemory remote() {
        return remote;
    }

    public AtomicOp atomic() {
        return atomic;
    }

    /** Atomic width in bytes: 4 or 8. */
    public int width() {
        return width;
    }

    /** Atomic operand: the addend, the new value of a swap, or the desired value of a compare-and-swap. */
    public long operand() {
        return operand;
    }

    /** The expected value of a compare-and-swap. */
    public long compare() {
        return compare;
    }

    /** Whether this op carries a coalesced frame ({@link ControlWord#BATCH}) rather than one message. */
    public boolean isBatch() {
        return batchRecords > 0;
    }

    /** Payload bytes, for accounting. */
    public long bytes() {
        return switch (kind) {
            case SEND -> messageLength() - (long) batchRecords * BatchFraming.RECORD_HEADER;
            case PUT, GET -> local.length();
            case ATOMIC -> width;
            default -> 0;
        };
    }

    boolean isCancelled() {
        return cancelled;
    }

    void cancel() {
        cancelled = true;
    }

    /**
     * Pins the memory this op lets the provider touch; false when it was deregistered meanwhile. Pairs with
     * {@link #releaseResources()}.
     */
    boolean pin() {
        MemoryRegion r = kind == OpKind.SEND ? (buffer != null ? buffer.region() : null)
                : local != null ? local.region() : null;
        if (r == null) {
            return true;
        }
        if (!MEMORY.tryPin(r)) {
            return false;
        }
        pinnedLocal = r;
        Buffer b = kind == OpKind.SEND ? body() : null;
        if (b != null) {
            if (!MEMORY.tryPin(b.region())) {
                MEMORY.unpin(r);
                pinnedLocal = null;
                return false;
            }
            pinnedBody = b.region();
        }
        return true;
    }

    /**
     * Puts {@code joined}, a copy of this send's two parts in one buffer, in their place (for a wire that does not
     * gather): the parts and their pins go, {@code joined} is pinned instead.
     */
    void replaceMessage(Buffer joined) {
        unpinAll();
        Buffer old = buffer;
        buffer = joined;
        old.release(); // and the body with it
        pin(); // a pool buffer allocated just now: its slab is open
    }

    private void unpinAll() {
        if (pinnedLocal != null) {
            MEMORY.unpin(pinnedLocal);
            pinnedLocal = null;
        }
        if (pinnedBody != null) {
            MEMORY.unpin(pinnedBody);
            pinnedBody = null;
        }
    }

    /** Unpins memory and drops the send buffer's reference: the provider is done with both. */
    void releaseResources() {
        unpinAll();
        if (buffer != null) {
            Buffer b = buffer;
            buffer = null;
            b.release();
        }
    }

    /** Clears the op for reuse by a streaming send. */
    void recycle() {
        buffer = null;
        local = null;
        remote = null;
        posted = false;
        if (cancelled) {
            cancelled = false; // a volatile store is a full fence: not one per message when there is nothing to clear
        }
        wireTag = 0;
        batchRecords = 0;
        whole = null;
        piecedBytes = 0;
        piecesOut = 0;
        piecesEnded = false;
        pieceFailure = null;
    }
}
