package dev.rivulet.core.interaction.frame;

/**
 * The kinds of frame of the interaction protocol, RSocket's frames without the connection set-up (a Rivulet endpoint
 * is connected and authenticated already) and without fragmentation flags (one frame is one Rivulet message).
 */
public final class FrameType {

    /** A request that wants no answer: one payload. */
    public static final int REQUEST_FNF = 1;
    /** A request for one answer: one payload. */
    public static final int REQUEST_RESPONSE = 2;
    /** A request for a stream of answers: one payload and the first credits ({@code n}). */
    public static final int REQUEST_STREAM = 3;
    /** A request that opens a stream each way: the first payload of the requester's stream and the first credits. */
    public static final int REQUEST_CHANNEL = 4;
    /** More credits for the stream's sender: it may send {@code n} more payloads. */
    public static final int REQUEST_N = 5;
    /** A payload of a stream ({@link Frames#NEXT}), its end ({@link Frames#COMPLETE}), or both at once. */
    public static final int PAYLOAD = 6;
    /** The stream ends in error; {@code n} carries an {@link ErrorCode}, the data a message. */
    public static final int ERROR = 7;
    /** The receiver of the stream wants nothing more: its sender stops. */
    public static final int CANCEL = 8;
    /** On stream 0: the responder admits {@code n} requests for the next milliseconds its data holds (an int). */
    public static final int LEASE = 9;

    private FrameType() {
    }

    /** Whether {@code type} opens a stream. */
    public static boolean isRequest(int type) {
        return type >= REQUEST_FNF && type <= REQUEST_CHANNEL;
    }

    public static String name(int type) {
        return switch (type) {
            case REQUEST_FNF -> "REQUEST_FNF";
            case REQUEST_RESPONSE -> "REQUEST_RESPONSE";
            case REQUEST_STREAM -> "REQUEST_STREAM";
            case REQUEST_CHANNEL -> "REQUEST_CHANNEL";
            case REQUEST_N -> "REQUEST_N";
            case PAYLOAD -> "PAYLOAD";
            case ERROR -> "ERROR";
            case CANCEL -> "CANCEL";
            case LEASE -> "LEASE";
            default -> "UNKNOWN(" + type + ")";
        };
    }
}
