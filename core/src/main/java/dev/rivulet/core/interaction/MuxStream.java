package dev.rivulet.core.interaction;

import dev.rivulet.core.interaction.frame.ErrorCode;
import dev.rivulet.core.interaction.frame.FrameType;
import dev.rivulet.core.interaction.frame.Frames;
import dev.rivulet.core.memory.Buffer;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.util.context.Context;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.CancellationException;

/**
 * One stream of a session: what it receives ({@link StreamInbound}), what it sends ({@link StreamOutbound}), either
 * or both, and the rules that end it. A stream leaves the session's table once both directions are over, so frames
 * that arrive later for it are dropped, as RSocket does.
 *
 * <p>Who may end what: the requester's cancel ends the whole stream; the responder's cancel of a channel's requests
 * only stops the requester's sending; an {@code ERROR} from either side ends the whole stream.
 */
final class MuxStream {

    private final InteractionSession session;
    /** Set again when a pooled record takes up its next request (before it is in the table again). */
    private int id;
    private final boolean requester;
    /** Whether this record goes back to its session once its request-response was answered ({@link #reuse}). */
    private final boolean pooled;
    private @Nullable StreamInbound in;
    private @Nullable StreamOutbound out;
    private boolean inOver;
    private boolean outOver;
    private boolean opened;
    /** A requester's request payload until its opening frame takes it (released if the stream ends first). */
    private @Nullable Payload unsent;
    /** The request type a requester's stream opens with. */
    private int requestType;
    /** A requester's channel payloads, subscribed when the stream opens. */
    private @Nullable Publisher<Payload> channelPayloads;
    /**
     * A pooled answer record's request payload while the answer is under way, where the session's ring of lent
     * payloads let go of its object (null otherwise: the ring still has it).
     */
    private @Nullable Payload heldRequest;
    /** The payload object of a pooled answer record's last request, once over, for the session to lend again. */
    private @Nullable Payload spareRequest;

    MuxStream(InteractionSession session, int id, boolean requester) {
        this(session, id, requester, false);
    }

    private MuxStream(InteractionSession session, int id, boolean requester, boolean pooled) {
        this.session = session;
        this.id = id;
        this.requester = requester;
        this.pooled = pooled;
        this.opened = !requester;
    }

    /**
     * A requester's record for request-responses, used for one after another: it goes back to the session once its
     * answer reached the subscriber, who holds a handle of that use only ({@link StreamInbound#generation()}); a
     * record that ends any other way (cancelled, failed) is simply dropped.
     */
    static MuxStream forRequestResponses(InteractionSession session) {
        MuxStream m = new MuxStream(session, 0, true, true);
        m.attach(new StreamInbound(m, true, true), null);
        return m;
    }

    /**
     * Takes up request-response {@code id}: as new, keeping its inbound side (pooled records only). No lock: the record
     * came out of the session's pool, and no other thread sees it until the table publishes it.
     */
    void reuse(int id) {
        this.id = id;
        opened = false;
        inOver = false;
        outOver = true;
        unsent = null;
        channelPayloads = null;
        Objects.requireNonNull(in).reuse();
    }

    /**
     * A responder's record for request-responses answered by a publisher it must subscribe to, used for one after
     * another: it goes back to the session once that publisher sent its last signal ({@link StreamOutbound}); one
     * whose publisher was cancelled (by the peer, the session's end, a failed write) is simply dropped, since the
     * publisher may still signal it. Each use has a subscriber of its own ({@link StreamOutbound#subscriber()}).
     */
    static MuxStream forAnswers(InteractionSession session) {
        MuxStream m = new MuxStream(session, 0, false, true);
        m.attach(null, new StreamOutbound(m, StreamOutbound.Shape.SINGLE, Context.empty()));
        return m;
    }

    /**
     * Takes up the answer to request-response {@code id} (pooled answer records only; polling thread, before the
     * table publishes it): as new, holding the request {@code frame} and its {@code request} payload until the
     * answer is over.
     */
    StreamOutbound reuseForAnswer(int id, Context context, Buffer frame, Payload request,
                                  @Nullable Observation observation) {
        heldRequest = session.hold(request, spareRequest) ? request : null;
        spareRequest = null;
        StreamOutbound o = Objects.requireNonNull(out);
        this.id = id;
        inOver = true;
        outOver = false;
        o.reuse(context, frame, observation);
        return o;
    }

    /** The inbound side of a pooled record. */
    StreamInbound inbound() {
        return Objects.requireNonNull(in);
    }

    /** A request-response's answer reached its subscriber, and the stream left the table: a pooled record goes back. */
    void answered() {
        if (pooled) {
            Payload held = heldRequest;
            heldRequest = null;
            if (held != null && held.letGo()) {
                spareRequest = held;
            }
            session.recycle(this);
        }
    }

    /** Whether this record is used for one request-response after another. */
    boolean isPooled() {
        return pooled;
    }

    /** Whether this is a requester's record (the side that opened the stream). */
    boolean isRequester() {
        return requester;
    }

    void attach(@Nullable StreamInbound in, @Nullable StreamOutbound out) {
        this.in = in;
        this.out = out;
        this.inOver = in == null;
        this.outOver = out == null;
    }

    /**
     * A requester's stream opens with a frame of {@code type} on its subscriber's first demand ({@link #open}):
     * carrying {@code request}, or for a channel the first of {@code payloads}.
     */
    synchronized void opensWith(int type, @Nullable Payload request, @Nullable Publisher<Payload> payloads) {
        this.requestType = type;
        this.unsent = request;
        this.channelPayloads = payloads;
    }

    /**
     * The requester's subscriber asked for its first {@code n} payloads: the opening frame goes out, with those
     * credits where its type carries any; a channel's opens with its first payload, once its publisher gives one.
     */
    void open(long n) {
        int type = requestType;
        if (type == FrameType.REQUEST_CHANNEL) {
            StreamOutbound o = Objects.requireNonNull(out);
            o.channelCredits((int) n);
            Objects.requireNonNull(channelPayloads).subscribe(o);
            o.credit(1); // the first payload, which opens the channel
            return;
        }
        Payload r = takeUnsent();
        if (r != null) {
            writer().payload(id, type, 0, type == FrameType.REQUEST_STREAM ? (int) n : 0, r);
            opened();
        }
    }

    /** Takes the request payload for the opening frame; null if the stream ended before it went. */
    private synchronized @Nullable Payload takeUnsent() {
        Payload p = unsent;
        unsent = null;
        return p;
    }

    int id() {
        return id;
    }

    FrameWriter writer() {
        return session.writer();
    }

    /** A received payload lent from {@code frame}: metadata decoded, data in place. */
    Payload payloadOf(Buffer frame, int metadataLength) {
        return session.payloadOf(frame, metadataLength);
    }

    // ------------------------------------------------------------------ frames from the peer (polling thread)

    void onFrame(int type, int flags, int n, Buffer frame, int metadataLength) {
        switch (type) {
            case FrameType.PAYLOAD -> {
                StreamInbound i = in;
                if (i == null) {
                    broken("a payload on a stream that sends none this way");
                } else {
                    i.onPayload(flags, frame, metadataLength);
                }
            }
            case FrameType.REQUEST_N -> {
                StreamOutbound o = out;
                if (n <= 0) {
                    broken("REQUEST_N of " + n);
                } else if (o != null) {
                    o.credit(n);
                }
            }
            case FrameType.CANCEL -> {
                StreamOutbound o = out;
                if (o != null) {
                    o.cancel();
                }
                if (!requester && in != null) {
                    in.fail(new CancellationException("the requester cancelled the channel"));
                }
                endOut();
                if (!requester) {
                    endIn();
                }
            }
            case FrameType.ERROR -> {
                String message = new String(frame.capacitySegment()
                        .asSlice(Frames.HEADER, frame.length() - Frames.HEADER).toArray(ValueLayout.JAVA_BYTE),
                        StandardCharsets.UTF_8);
                endBoth(ErrorCode.toException(n, message), null);
            }
            default -> broken("a " + FrameType.name(type) + " frame on an open stream");
        }
    }

    /** The peer broke this stream's rules: it gets an error frame and the stream ends here (with an error). */
    void brokenByPeer(String what) {
        broken(what);
    }

    private void broken(String what) {
        writer().error(id, ErrorCode.INVALID, what);
        endBoth(new dev.rivulet.core.error.InvalidRequestException("the peer broke the stream's protocol: " + what),
                null);
    }

    // ------------------------------------------------------------------ from the local sides

    /** The inbound side's opening frame went out (a requester's channel, once its first payload did). */
    synchronized void opened() {
        opened = true;
    }

    /** A requester's opening frame could not be written (too large): nothing reached the peer. */
    void openFailed() {
        StreamOutbound o = out;
        if (o != null) {
            o.cancel();
        }
        endOut();
        endIn();
    }

    /** The local subscriber cancelled its inbound payloads. */
    void inboundCancelled() {
        boolean tell;
        synchronized (this) {
            tell = opened && !inOver;
        }
        if (tell) {
            writer().control(id, FrameType.CANCEL, 0, 0);
        }
        if (requester) {
            StreamOutbound o = out;
            if (o != null) {
                o.cancel();
            }
            endOut();
        }
        endIn();
    }

    /** The inbound side received the peer's complete. */
    void inboundCompleted() {
        endIn();
    }

    /** The inbound side found the peer breaking its rules: tell it, stop sending, end. */
    void inboundBroken(int code, @Nullable String message) {
        writer().error(id, code, message);
        StreamOutbound o = out;
        if (o != null) {
            o.cancel();
        }
        endOut();
        endIn();
    }

    /** The outbound side sent its complete. */
    void outboundCompleted() {
        endOut();
    }

    /**
     * The local publisher failed (or its payload could not be written): the peer is told, if it knows the stream,
     * and the whole stream ends; a requester's subscriber sees the error.
     */
    void outboundFailed(Throwable t, boolean peerKnows) {
        if (peerKnows) {
            writer().error(id, t);
        }
        endBoth(t, out);
    }

    /** A requester's channel whose publisher completed without a payload: nothing was opened, nothing answers. */
    void channelEmpty() {
        StreamInbound i = in;
        if (i != null) {
            i.completeEmpty();
        }
        endOut();
        endIn();
    }

    /** The session ended under this stream. */
    void sessionEnded(Throwable cause) {
        endBoth(cause, null);
    }

    private void endBoth(Throwable cause, @Nullable StreamOutbound alreadyOver) {
        StreamInbound i = in;
        StreamOutbound o = out;
        if (o != null && o != alreadyOver) {
            o.cancel();
        }
        if (i != null) {
            if (requester) {
                i.fail(cause);
            } else {
                i.fail(new CancellationException("the stream ended: " + cause.getMessage()));
            }
        }
        endOut();
        endIn();
    }

    private void endIn() {
        boolean gone;
        Payload neverSent;
        synchronized (this) {
            if (inOver) {
                return;
            }
            inOver = true;
            gone = outOver;
            neverSent = unsent;
            unsent = null;
        }
        if (neverSent != null) {
            neverSent.release();
        }
        if (gone) {
            session.removed(this);
        }
    }

    private void endOut() {
        boolean gone;
        synchronized (this) {
            if (outOver) {
                return;
            }
            outOver = true;
            gone = inOver;
        }
        if (gone) {
            session.removed(this);
        }
    }

    @Override
    public String toString() {
        return "stream " + id + (requester ? " (requester)" : " (responder)");
    }
}
