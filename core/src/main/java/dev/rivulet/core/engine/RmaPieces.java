package dev.rivulet.core.engine;

import dev.rivulet.core.memory.RegisteredSlice;
import reactor.util.context.Context;

import java.util.ArrayDeque;

/**
 * The pieces of puts and gets longer than the wire's largest one-sided operation ({@code Capabilities.maxRmaSize}):
 * such an operation goes as consecutive pieces of at most that size, each an op of its own that names its bytes of
 * the local slice and of the remote window, so a wire never sees more than it can carry. {@link Outbound} posts them
 * while the operation stays at the head of the pending FIFO (each piece takes a send slot, and what was issued after
 * the operation waits behind it) and finishes the operation when the last piece it posted was reported. The remote
 * window was checked for the whole range when the operation was subscribed; each piece is a narrower window of it.
 *
 * <p>Pieces are recycled: a split costs the two windows of each piece, nothing more, and an operation within the
 * limit costs one comparison. Progress thread only.
 */
final class RmaPieces {

    private final EndpointEngine engine;
    private final long maxPiece;
    private final ArrayDeque<Op> free = new ArrayDeque<>();

    RmaPieces(EndpointEngine engine, long maxPiece) {
        this.engine = engine;
        this.maxPiece = Math.max(1, maxPiece); // a limit below one byte would never make progress
    }

    /** Whether {@code op} is a put or get too long to be posted as it is. Atomics are never split. */
    boolean needsSplit(Op op) {
        return op.kind != OpKind.ATOMIC && op.local.length() > maxPiece;
    }

    /**
     * The piece of {@code whole} that starts where its posted pieces end: at most {@code maxPiece} bytes, at the same
     * offset of the local slice and of the remote window. {@code whole} is unchanged until {@link #posted}.
     */
    Op next(Op whole) {
        Op piece = free.pollFirst();
        if (piece == null) {
            piece = new Op(engine);
        }
        RegisteredSlice local = whole.local;
        long offset = whole.piecedBytes;
        long length = Math.min(maxPiece, local.length() - offset);
        piece.kind = whole.kind;
        piece.whole = whole;
        piece.local = new RegisteredSlice(local.region(), local.offset() + offset, length);
        piece.remote = whole.remote.slice(offset, length);
        piece.context = whole.context;
        piece.startNanos = Outbound.UNTIMED;
        return piece;
    }

    /** The wire took {@code piece}: it is outstanding until reported; returns whether it was {@code whole}'s last. */
    boolean posted(Op piece) {
        Op whole = piece.whole;
        piece.posted = true;
        whole.piecedBytes += piece.local.length();
        whole.piecesOut++;
        return whole.piecedBytes == whole.local.length();
    }

    /** Back to the pool: a piece the wire refused, or one it reported. */
    void recycle(Op piece) {
        piece.recycle();
        piece.context = Context.empty();
        free.addFirst(piece);
    }
}
