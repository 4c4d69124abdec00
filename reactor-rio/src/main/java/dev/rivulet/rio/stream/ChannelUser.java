package dev.rivulet.rio.stream;

/**
 * What sits on a {@link StreamChannel} and takes its completions: the {@link StreamWire}, or a layer in between
 * ({@link TlsChannel}). Called on the progress thread that owns the channel.
 */
public interface ChannelUser {

    /** The channel is attached: start receiving. */
    void start();

    /** A completion of something posted with {@code token}; {@code result} is a byte count or {@code -errno}. */
    void onCompletion(int token, int result, int flags);

    /** The transport is going away: give back every buffer at once; the system layer closes the socket. */
    void abandon();

    /** The system layer is gone (ring closed): no posted receive can write any more. */
    void systemGone();
}
