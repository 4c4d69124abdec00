package dev.rivulet.core.interaction;

import dev.rivulet.core.interaction.frame.FrameType;
import dev.rivulet.core.interaction.frame.Frames;
import dev.rivulet.core.memory.Buffer;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/**
 * Opens the streams a peer requests: decodes the request, calls the {@link Responder}'s handler for its model on the
 * polling thread, and subscribes what the handler returns under the peer's credits. The request frame is held
 * (retained) until the handler's publisher is over, so a handler may read its request payload whenever it likes
 * until then.
 */
final class ResponderStreams {

    private static final Logger log = LoggerFactory.getLogger(ResponderStreams.class);

    private final InteractionSession session;
    private final Responder responder;

    ResponderStreams(InteractionSession session, Responder responder) {
        this.session = session;
        this.responder = responder;
    }

    void open(int id, int type, int flags, int n, Buffer frame, int metadataLength) {
        Payload request;
        try {
            request = MuxStream.payloadOf(frame, metadataLength);
        } catch (RuntimeException e) {
            if (type != FrameType.REQUEST_FNF) {
                session.rejectOpen(id, e);
            }
            return;
        }
        frame.retain();
        Runnable releaseRequest = frame::release;
        switch (type) {
            case FrameType.REQUEST_FNF -> Mono.defer(() -> responder.fireAndForget(request))
                    .doFinally(signal -> releaseRequest.run())
                    .subscribe(null, e -> log.debug("fire-and-forget handler failed on stream {}", id, e));
            case FrameType.REQUEST_RESPONSE -> answer(id, StreamOutbound.Shape.SINGLE, 1,
                    Mono.defer(() -> responder.requestResponse(request)), null, releaseRequest);
            case FrameType.REQUEST_STREAM -> {
                if (n <= 0) {
                    releaseRequest.run();
                    session.rejectOpen(id, new dev.rivulet.core.error.InvalidRequestException(
                            "a request-stream with " + n + " initial credits"));
                    return;
                }
                answer(id, StreamOutbound.Shape.STREAM, n, Flux.defer(() -> responder.requestStream(request)), null,
                        releaseRequest);
            }
            case FrameType.REQUEST_CHANNEL -> {
                if (n <= 0) {
                    releaseRequest.run();
                    session.rejectOpen(id, new dev.rivulet.core.error.InvalidRequestException(
                            "a request-channel with " + n + " initial credits"));
                    return;
                }
                MuxStream stream = new MuxStream(session, id, false);
                StreamInbound rest = new StreamInbound(stream, null);
                subscribeAnswer(stream, rest, StreamOutbound.Shape.STREAM, n,
                        Flux.defer(() -> responder.requestChannel(request, rest)), releaseRequest);
                if ((flags & Frames.COMPLETE) != 0) {
                    rest.completeEmpty(); // the requester's stream held only the opening payload
                }
            }
            default -> throw new IllegalStateException("not a request: " + type);
        }
    }

    private void answer(int id, StreamOutbound.Shape shape, int credits, Publisher<Payload> answer,
                        @Nullable StreamInbound in, Runnable releaseRequest) {
        subscribeAnswer(new MuxStream(session, id, false), in, shape, credits, answer, releaseRequest);
    }

    private void subscribeAnswer(MuxStream stream, @Nullable StreamInbound in, StreamOutbound.Shape shape, int credits,
                                 Publisher<Payload> answer, Runnable releaseRequest) {
        StreamOutbound out = new StreamOutbound(stream, shape, Context.empty());
        stream.attach(in, out);
        session.opened(stream);
        Flux.from(answer).doFinally(signal -> releaseRequest.run()).subscribe(out);
        out.credit(credits);
    }
}
