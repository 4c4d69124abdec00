package dev.rivulet.core.resume;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.Buffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One connection a session runs on: reads the endpoint's messages as frames and hands them to its {@link Listener}
 * (first the handshake, then the session), writes frames, and reports the connection's end once, whatever ended it.
 * A frame the listener refuses (a protocol violation) ends the connection, not the process.
 */
final class Link {

    private static final Logger log = LoggerFactory.getLogger(Link.class);
    private static final ValueLayout.OfLong POSITION = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

    /** Who hears a connection's frames; called on the endpoint's progress thread, one frame at a time. */
    interface Listener {
        void onData(Link link, long position, byte[] payload);

        /** A frame other than DATA; {@code body} is what follows the type byte. */
        void onControl(Link link, byte type, ByteBuffer body);

        /** The connection ended; called once per link. */
        void onLost(Link link, TransportException why);
    }

    private final Endpoint endpoint;
    private final AtomicBoolean lost = new AtomicBoolean();
    private volatile Listener listener;

    Link(Endpoint endpoint, Listener listener) {
        this.endpoint = endpoint;
        this.listener = listener;
    }

    /** Starts reading; the peer gets credits for the receive queue's depth of frames. */
    Link start() {
        endpoint.receive().subscribe(this::arrived,
                e -> lost(e instanceof TransportException t ? t : new ConnectionLostException("receive failed", e)),
                () -> lost(new ConnectionLostException("the connection to " + endpoint.remoteAddress() + " closed")));
        endpoint.closeReason().subscribe(r -> lost(r.cause()));
        return this;
    }

    void listener(Listener next) {
        listener = next;
    }

    Endpoint endpoint() {
        return endpoint;
    }

    /** The largest payload a DATA frame can carry on this connection. */
    int maxPayload() {
        return (int) Math.min(Integer.MAX_VALUE - 16, endpoint.capabilities().maxMessageSize() - Frames.DATA_HEADER);
    }

    /**
     * Writes a frame. Frames written from one thread at a time (the session's lock) leave in that order. A write that
     * fails ends the connection: the session then resumes on another and replays what the peer lacks.
     */
    void send(byte[] frame) {
        endpoint.send(frame).subscribe(null, e -> endpoint.dispose());
    }

    /** Ends the connection once the frames written so far have left. */
    void close() {
        endpoint.closeGracefully(CLOSE_TIMEOUT).subscribe(null, e -> endpoint.dispose());
    }

    /** Ends the connection now. */
    void abort() {
        endpoint.dispose();
    }

    boolean isLost() {
        return lost.get();
    }

    private void arrived(Buffer frame) {
        try {
            byte type = frame.get(ValueLayout.JAVA_BYTE, 0);
            if (type == Frames.DATA) {
                long position = frame.get(POSITION, 1);
                byte[] payload = new byte[frame.length() - Frames.DATA_HEADER];
                frame.copyTo(Frames.DATA_HEADER, payload, 0, payload.length);
                listener.onData(this, position, payload);
            } else {
                byte[] bytes = frame.toArray();
                listener.onControl(this, type, ByteBuffer.wrap(bytes, 1, bytes.length - 1));
            }
        } catch (RuntimeException e) {
            log.warn("closing the session connection to {}: {}", endpoint.remoteAddress(), e.toString());
            lost(new CreditProtocolException("session protocol violation: " + e.getMessage(), e));
            endpoint.dispose();
        }
    }

    private void lost(TransportException why) {
        if (lost.compareAndSet(false, true)) {
            listener.onLost(this, why);
        }
    }

    @Override
    public String toString() {
        return "Link[" + endpoint.remoteAddress() + "]";
    }
}
