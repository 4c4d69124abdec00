package dev.rivulet.core.interaction;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.RequestRejectedException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.interaction.frame.ErrorCode;
import dev.rivulet.core.interaction.frame.FrameType;
import dev.rivulet.core.interaction.frame.Frames;
import dev.rivulet.core.memory.Buffer;
import org.jctools.maps.NonBlockingHashMapLong;
import org.jctools.queues.MpmcArrayQueue;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.CoreSubscriber;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.core.publisher.Sinks;
import reactor.util.context.ContextView;

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * The interaction protocol over one endpoint: one subscriber of {@code receive()} dispatches each frame to its stream
 * by id, one {@link FrameWriter} sends what every stream writes, and a table of open streams ties the two. The side
 * that connected opens odd stream ids, the side that accepted even ones, so both may request at once.
 */
final class InteractionSession implements Requester {

    private static final Logger log = LoggerFactory.getLogger(InteractionSession.class);
    /** Request-response records kept for reuse: as many as are commonly in flight at once; more are dropped. */
    private static final int POOLED_RECORDS = 1024;

    private final Endpoint endpoint;
    private final FrameWriter writer;
    private final ResponderStreams responding;
    private final boolean connector;
    private final StreamTable streams = new StreamTable();
    private final AtomicInteger nextId;
    /** Whether stream ids wrapped around once, so that a new id may still be in use by a long-lived stream. */
    private volatile boolean wrapped;
    private final Sinks.Empty<Void> ended = Sinks.empty();
    private final Propagation propagation;
    /** What the peer's leases still admit of this side's requests. */
    private final LeaseWindow peerLease = new LeaseWindow();
    private final @Nullable Publisher<Lease> leases;
    private volatile @Nullable Disposable leaseSending;
    /** Payloads arriving in fragments, by stream (polling thread only). */
    private final NonBlockingHashMapLong<Reassembly> reassembling = new NonBlockingHashMapLong<>();
    private final long maxReassembled;
    private long reassembled;
    /** Entries of {@link #reassembling}, so that a frame looks there only when something is under way. */
    private int reassemblies;
    private final MetadataCache metadata = new MetadataCache();
    /** The received payloads' objects (polling thread only). */
    private final LentPayloads lent = new LentPayloads();
    /** Records of request-responses that were answered, for the next ones (see {@link MuxStream#reuse}). */
    private final MpmcArrayQueue<MuxStream> answeredRecords = new MpmcArrayQueue<>(POOLED_RECORDS);
    private volatile @Nullable Throwable endCause;

    InteractionSession(Endpoint endpoint, boolean connector, Responder responder, InteractionOptions options) {
        this.endpoint = endpoint;
        this.writer = new FrameWriter(endpoint);
        this.propagation = new Propagation(options);
        this.leases = options.leases();
        this.maxReassembled = options.maxPayloadSize();
        this.responding = new ResponderStreams(this, responder, propagation, leases == null ? null : new LeaseWindow());
        this.connector = connector;
        this.nextId = new AtomicInteger(connector ? 1 : 2);
    }

    void start() {
        writer.start(this::sendEnded);
        endpoint.receive().subscribe(this::onFrame, this::end,
                () -> end(new ResourceClosedException("the endpoint closed")));
        if (leases != null) {
            leaseSending = Flux.from(leases).subscribe(lease -> {
                responding.leased(lease);
                writer.lease(lease);
            }, e -> log.warn("the lease publisher of {} failed: no more leases are sent", endpoint.remoteAddress(), e));
            if (endCause != null) {
                leaseSending.dispose();
            }
        }
    }

    FrameWriter writer() {
        return writer;
    }

    // ==================================================================================== requester

    @Override
    public Mono<Void> fireAndForget(Payload payload) {
        Objects.requireNonNull(payload, "payload");
        return new FireAndForgetMono(payload);
    }

    /** Sends a fire-and-forget's frame for a subscriber with {@code context}; returns why it could not go, or null. */
    private @Nullable Throwable fire(Payload payload, ContextView context) {
        Throwable refused = refusal();
        if (refused != null) {
            payload.release();
            return refused;
        }
        Propagation.Outgoing out = propagation.isActive()
                ? propagation.outgoing(payload, "fire-and-forget", context) : null;
        try {
            writer.payload(allocateId(), FrameType.REQUEST_FNF, 0, 0, out == null ? payload : out.payload());
        } catch (RuntimeException e) {
            if (out != null) {
                out.stop(e);
            }
            return e;
        }
        if (out != null) {
            out.stop(null);
        }
        return null;
    }

    /** A fire-and-forget: each subscription sends the frame and completes (or fails) at once, with no operator. */
    private final class FireAndForgetMono extends Mono<Void> {

        private final Payload payload;

        FireAndForgetMono(Payload payload) {
            this.payload = payload;
        }

        @Override
        public void subscribe(CoreSubscriber<? super Void> actual) {
            Throwable failed = fire(payload, actual.currentContext());
            if (failed != null) {
                Operators.error(actual, failed);
            } else {
                Operators.complete(actual);
            }
        }
    }

    @Override
    public Mono<Payload> requestResponse(Payload payload) {
        Objects.requireNonNull(payload, "payload");
        if (!propagation.isActive()) {
            return new RequestMono(payload);
        }
        return Mono.from(request(FrameType.REQUEST_RESPONSE, "request-response", payload));
    }

    @Override
    public Flux<Payload> requestStream(Payload payload) {
        Objects.requireNonNull(payload, "payload");
        return request(FrameType.REQUEST_STREAM, "request-stream", payload);
    }

    @Override
    public Flux<Payload> requestChannel(Publisher<Payload> payloads) {
        Objects.requireNonNull(payloads, "payloads");
        if (!propagation.isActive()) {
            return new RequestFlux(FrameType.REQUEST_CHANNEL, null, payloads);
        }
        return Flux.deferContextual(context -> {
            Propagation.Outgoing[] out = new Propagation.Outgoing[1];
            Flux<Payload> decorated = Flux.from(payloads).map(p -> {
                if (out[0] != null) {
                    return p;
                }
                out[0] = propagation.outgoing(p, "request-channel", context);
                return out[0].payload();
            });
            return new RequestFlux(FrameType.REQUEST_CHANNEL, null, decorated)
                    .doOnError(e -> stop(out[0], e))
                    .doOnComplete(() -> stop(out[0], null))
                    .doOnCancel(() -> stop(out[0], null));
        });
    }

    private Flux<Payload> request(int type, String model, Payload payload) {
        if (!propagation.isActive()) {
            return new RequestFlux(type, payload, null);
        }
        return Flux.deferContextual(context -> {
            Propagation.Outgoing out = propagation.outgoing(payload, model, context);
            return new RequestFlux(type, out.payload(), null)
                    .doOnError(e -> out.stop(e))
                    .doOnComplete(() -> out.stop(null))
                    .doOnCancel(() -> out.stop(null));
        });
    }

    private static void stop(Propagation.@Nullable Outgoing out, @Nullable Throwable error) {
        if (out != null) {
            out.stop(error);
        }
    }

    /** Why a new request cannot go now (the session ended, the peer's lease admits none), or null. */
    private @Nullable Throwable refusal() {
        Throwable over = endCause;
        if (over != null) {
            return over;
        }
        if (!peerLease.tryTake()) {
            return new RequestRejectedException(peerLease.describe(), true);
        }
        return null;
    }

    @Override
    public Mono<Void> onClose() {
        return ended.asMono();
    }

    @Override
    public void dispose() {
        endpoint.dispose();
    }

    @Override
    public boolean isDisposed() {
        return endCause != null;
    }

    /**
     * Opens one request for {@code actual}: a stream id, its table entry, and the opening frame on the first demand
     * ({@code request} for the single-payload models, {@code payloads} for a channel). A request-response's
     * {@code handle} takes a pooled record and is what the subscriber gets; other requests get a record of their own.
     */
    private void openRequest(int type, @Nullable Payload request, @Nullable Publisher<Payload> payloads,
                             CoreSubscriber<? super Payload> actual, @Nullable RequestMono handle) {
        Throwable refused = refusal();
        if (refused != null) {
            if (request != null) {
                request.release(); // what the request would have sent goes back, as a failed send's buffer does
            }
            Operators.error(actual, refused);
            return;
        }
        int id = allocateId();
        MuxStream stream;
        StreamInbound in;
        if (handle != null) {
            stream = answeredRecords.poll();
            if (stream == null) {
                stream = MuxStream.forRequestResponses(this);
            }
            stream.reuse(id);
            in = stream.inbound();
            handle.bind(in);
        } else {
            stream = new MuxStream(this, id, true);
            in = new StreamInbound(stream, true, type == FrameType.REQUEST_RESPONSE);
            StreamOutbound out = type == FrameType.REQUEST_CHANNEL
                    ? new StreamOutbound(stream, StreamOutbound.Shape.CHANNEL_REQUESTS, actual.currentContext())
                    : null;
            stream.attach(in, out);
        }
        stream.opensWith(type, request, payloads);
        streams.put(stream);
        Throwable lateEnd = endCause;
        if (lateEnd != null) {
            stream.sessionEnded(lateEnd); // the session ended while this registered: nothing else will end it
        }
        in.subscribe(actual, handle != null ? handle : in);
    }

    /** A request-response's record whose use is over (answered, or its answer sent), for a later one. */
    void recycle(MuxStream record) {
        if (record.isRequester()) {
            answeredRecords.offer(record);
        } else {
            responding.recycle(record);
        }
    }

    /** A request-stream or request-channel: one request per subscription. */
    private final class RequestFlux extends Flux<Payload> {

        private final int type;
        private final @Nullable Payload request;
        private final @Nullable Publisher<Payload> payloads;

        RequestFlux(int type, @Nullable Payload request, @Nullable Publisher<Payload> payloads) {
            this.type = type;
            this.request = request;
            this.payloads = payloads;
        }

        @Override
        public void subscribe(CoreSubscriber<? super Payload> actual) {
            openRequest(type, request, payloads, actual, null);
        }
    }

    /**
     * A request-response, and the subscription its subscriber gets: the stream record behind it is pooled, and this
     * handle reaches it only in the use it was bound to, so a late {@code request} or {@code cancel} after the answer
     * does nothing to the record's next request. No operator stands between the stream and the subscriber.
     */
    private final class RequestMono extends Mono<Payload> implements Subscription {

        private final Payload request;
        private static final AtomicIntegerFieldUpdater<RequestMono> SUBSCRIBED =
                AtomicIntegerFieldUpdater.newUpdater(RequestMono.class, "subscribed");

        /** Whether this Mono was subscribed: a second subscription makes a request of its own, with a handle of its own. */
        @SuppressWarnings("unused") // through SUBSCRIBED
        private volatile int subscribed;
        private @Nullable StreamInbound in;
        private int generation;

        RequestMono(Payload request) {
            this.request = request;
        }

        @Override
        public void subscribe(CoreSubscriber<? super Payload> actual) {
            if (!SUBSCRIBED.compareAndSet(this, 0, 1)) {
                new RequestMono(request).subscribe(actual);
                return;
            }
            openRequest(FrameType.REQUEST_RESPONSE, request, null, actual, this);
        }

        /** This handle is for {@code in}'s present use (set before the subscriber gets the handle). */
        void bind(StreamInbound in) {
            this.in = in;
            this.generation = in.generation();
        }

        @Override
        public void request(long n) {
            StreamInbound i = in;
            if (i != null) {
                i.request(generation, n);
            }
        }

        @Override
        public void cancel() {
            StreamInbound i = in;
            if (i != null) {
                i.cancel(generation);
            }
        }
    }

    private int allocateId() {
        for (;;) {
            int id = nextId.getAndAdd(2);
            if (id <= 0) {
                // Wrapped after 2^30 requests: start over, and from now on skip ids still in use.
                wrapped = true;
                nextId.compareAndSet(id + 2, connector ? 1 : 2);
                continue;
            }
            if (!wrapped || !streams.contains(id)) {
                return id;
            }
        }
    }

    // ==================================================================================== frames in

    /** A frame from the peer (polling thread); the endpoint releases it when this returns. */
    private void onFrame(Buffer frame) {
        int length = frame.length();
        if (length < Frames.HEADER) {
            violation("a frame of " + length + " bytes");
            return;
        }
        int id = Frames.streamId(frame);
        int type = Frames.type(frame);
        int flags = Frames.flags(frame);
        int n = Frames.n(frame);
        int metadataLength = Frames.metadataLength(frame);
        if (id == 0 && type == FrameType.LEASE && length >= Frames.HEADER + 4 && n >= 0) {
            int ttlMillis = Frames.getInt(frame.capacitySegment(), Frames.HEADER);
            if (ttlMillis > 0) {
                peerLease.renew(n, TimeUnit.MILLISECONDS.toNanos(ttlMillis));
                return;
            }
        }
        if (id <= 0 || metadataLength < 0 || metadataLength > length - Frames.HEADER) {
            violation("a frame for stream " + id + " with " + metadataLength + " bytes of metadata in " + length);
            return;
        }
        Reassembly r = reassemblies == 0 ? null : reassembling.get(id);
        if (r != null && type == FrameType.PAYLOAD || (flags & Frames.FOLLOWS) != 0) {
            if (r == null) {
                r = new Reassembly(type);
                reassembling.put(id, r);
                reassemblies++;
            }
            boolean last = (flags & Frames.FOLLOWS) == 0;
            if (r.isDiscarding()) {
                if (last) {
                    forget(id);
                }
                return;
            }
            if (reassembled + r.sizeOf(frame) > maxReassembled) {
                reassembled -= r.bytes();
                r.discard();
                if (last) {
                    forget(id);
                }
                tooLarge(id, r.type());
                return;
            }
            reassembled += r.sizeOf(frame);
            r.add(frame);
            if (!last) {
                return;
            }
            forget(id);
            reassembled -= r.bytes();
            Buffer whole = r.assemble(endpoint.memory(), flags);
            try {
                onFrame(whole);
            } finally {
                whole.release();
            }
            return;
        }
        if (r != null && (type == FrameType.CANCEL || type == FrameType.ERROR)) {
            dropReassembly(id);
        }
        dispatch(id, type, flags, n, frame, metadataLength);
    }

    private void dispatch(int id, int type, int flags, int n, Buffer frame, int metadataLength) {
        if (FrameType.isRequest(type)) {
            if (((id & 1) == 1) == connector || streams.contains(id)) {
                violation("a request opening stream " + id + ", which it may not open now");
                return;
            }
            responding.open(id, type, flags, n, frame, metadataLength);
            return;
        }
        MuxStream stream = streams.get(id);
        if (stream != null) {
            stream.onFrame(type, flags, n, frame, metadataLength);
        } // else: a stream that ended here already; what was under way when it ended is dropped
    }

    private @Nullable Reassembly forget(int id) {
        Reassembly r = reassembling.remove(id);
        if (r != null) {
            reassemblies--;
        }
        return r;
    }

    private void dropReassembly(int id) {
        Reassembly r = forget(id);
        if (r != null) {
            reassembled -= r.bytes();
            r.release();
        }
    }

    /** A payload arriving in fragments grew beyond what this side holds: its stream fails, the connection stays. */
    private void tooLarge(int id, int type) {
        String what = "a payload beyond " + maxReassembled + " bytes in fragments";
        MuxStream stream = streams.get(id);
        if (stream != null) {
            stream.brokenByPeer(what);
        } else if (FrameType.isRequest(type)) {
            writer.error(id, ErrorCode.INVALID, what);
        }
    }

    /** The peer broke the protocol outside any one stream: the connection cannot be trusted, so it ends. */
    private void violation(String what) {
        InvalidRequestException e = new InvalidRequestException("the peer broke the interaction protocol: " + what);
        log.warn("closing {}: {}", endpoint.remoteAddress(), e.getMessage());
        end(e);
        endpoint.dispose();
    }

    /** A received payload lent from {@code frame}: metadata decoded, data in place (polling thread). */
    Payload payloadOf(Buffer frame, int metadataLength) {
        Metadata m = metadataLength == 0 ? Metadata.EMPTY
                : metadata.decode(frame.capacitySegment(), Frames.HEADER, metadataLength);
        int at = Frames.HEADER + metadataLength;
        return lent.lend(frame, m, at, frame.length() - at);
    }

    /** Holds {@code request}, the payload lent last, for a handler still answering; see {@link LentPayloads#hold}. */
    boolean hold(Payload request, @Nullable Payload spare) {
        return lent.hold(request, spare);
    }

    /** Registers a stream the peer opened. */
    void opened(MuxStream stream) {
        streams.put(stream);
    }

    void removed(MuxStream stream) {
        streams.remove(stream);
    }

    /** Sends the error frame ({@link ErrorCode} {@code code}) for a request the peer opened that could not start. */
    void rejectOpen(int id, int code, @Nullable String message) {
        writer.error(id, code, message);
    }

    // ==================================================================================== the end

    private void sendEnded(@Nullable Throwable error) {
        if (error != null) {
            end(error);
        }
    }

    private void end(Throwable cause) {
        synchronized (this) {
            if (endCause != null) {
                return;
            }
            endCause = cause;
        }
        Disposable l = leaseSending;
        if (l != null) {
            l.dispose();
        }
        for (MuxStream s : streams.drain()) {
            s.sessionEnded(cause);
        }
        for (long id : reassembling.keySetLong()) {
            dropReassembly((int) id);
        }
        writer.finish();
        ended.tryEmitEmpty();
    }
}
