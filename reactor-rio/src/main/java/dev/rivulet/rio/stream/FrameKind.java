package dev.rivulet.rio.stream;

/** The kinds of frame on a stream connection (see the package documentation for the layout). */
public final class FrameKind {

    /** A credit-protocol word ({@code DATA}, {@code BATCH}, {@code CREDIT}, {@code CLOSE}) with its payload. */
    public static final int MESSAGE = 1;
    /** Write {@code payload - RmaRequest} into the target's registered memory; answered by {@link #RMA_ACK}. */
    public static final int PUT = 2;
    /** Read from the target's registered memory; answered by {@link #GET_RESP}. */
    public static final int GET = 3;
    /** The bytes a {@link #GET} asked for. */
    public static final int GET_RESP = 4;
    /** An atomic on the target's registered memory; answered by {@link #ATOMIC_RESP} (8-byte previous value). */
    public static final int ATOMIC = 5;
    public static final int ATOMIC_RESP = 6;
    /** A {@link #PUT} was applied. */
    public static final int RMA_ACK = 7;
    /** An RMA request failed at the target (key, bounds, rights); payload: the reason in UTF-8. */
    public static final int RMA_ERR = 8;
    /** Answered by {@link #FLUSH_ACK} once the target has processed every frame before it. */
    public static final int FLUSH = 9;
    public static final int FLUSH_ACK = 10;
    /** Sent by a side that sent nothing for a heartbeat interval; answered at once by {@link #HEARTBEAT_ACK}. */
    public static final int HEARTBEAT = 11;
    public static final int HEARTBEAT_ACK = 12;

    static final int MAX = HEARTBEAT_ACK;

    private FrameKind() {
    }

    /** Whether {@code kind} is a request the target answers in order (so the initiator keeps one FIFO). */
    static boolean isRequest(int kind) {
        return kind == PUT || kind == GET || kind == ATOMIC || kind == FLUSH;
    }

    public static String name(int kind) {
        return switch (kind) {
            case MESSAGE -> "MESSAGE";
            case PUT -> "PUT";
            case GET -> "GET";
            case GET_RESP -> "GET_RESP";
            case ATOMIC -> "ATOMIC";
            case ATOMIC_RESP -> "ATOMIC_RESP";
            case RMA_ACK -> "RMA_ACK";
            case RMA_ERR -> "RMA_ERR";
            case FLUSH -> "FLUSH";
            case FLUSH_ACK -> "FLUSH_ACK";
            case HEARTBEAT -> "HEARTBEAT";
            case HEARTBEAT_ACK -> "HEARTBEAT_ACK";
            default -> "kind " + kind;
        };
    }
}
