package dev.rivulet.core.engine;

import dev.rivulet.core.Operation;

/** The kinds of operation that pass through an endpoint's pending FIFO. */
public enum OpKind {
    SEND("send"),
    PUT("put"),
    GET("get"),
    ATOMIC("atomic"),
    FLUSH("flush"),
    FENCE("fence");

    /** Lower-case name used as the {@code op} tag of meters. */
    public final String tag;

    OpKind(String tag) {
        this.tag = tag;
    }

    Operation operation(AtomicOp atomic, int width) {
        return switch (this) {
            case SEND -> Operation.SEND;
            case PUT -> Operation.PUT;
            case GET -> Operation.GET;
            case FLUSH -> Operation.FLUSH;
            case FENCE -> Operation.FENCE;
            case ATOMIC -> atomic.operation(width);
        };
    }
}
