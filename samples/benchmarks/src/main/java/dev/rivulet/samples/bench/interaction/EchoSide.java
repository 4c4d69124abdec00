package dev.rivulet.samples.bench.interaction;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.memory.Buffer;
import org.jctools.queues.MpscUnboundedArrayQueue;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.publisher.Sinks;

/**
 * The bound of the interaction measurements on one transport: the same requests and answers as plain messages of an
 * endpoint, with no interaction layer between (no stream ids, frames, stream table, routing or per-stream credits).
 * The server echoes every message it receives, except a {@link StreamRequest} ({@value StreamRequest#LENGTH} bytes),
 * which it answers with as many prepared messages as it asks for. The requester sends each request-response through
 * one long-lived {@code send(Publisher)} on one connection and matches answers to requests by their order, which an
 * echo keeps; it reads a stream as {@code receive()} of a second connection, under that subscriber's demand. What the
 * interaction layer costs on top of the transport is the difference between this and {@link RivuletSide}.
 */
final class EchoSide {

    private EchoSide() {
    }

    /** Echoes every message {@code endpoint} receives, in order, and answers stream requests, until it closes. */
    static void serve(Endpoint endpoint) {
        RivuletSide.Prepared data = new RivuletSide.Prepared(endpoint.memory());
        // A received message is lent for its onNext: retain() keeps it (a reference, or a copy of a packed record)
        // until its echo is in the outgoing frame; a stream request is read there and then.
        Flux<Buffer> out = endpoint.receive()
                .map(b -> b.length() == StreamRequest.LENGTH
                        ? StreamRequest.answer(StreamRequest.count(b.segment()), StreamRequest.size(b.segment()),
                                data::retained)
                        : Mono.just(b.retain()))
                // An echo passes straight through (a scalar inner); the prefetch lets as many messages in flight as
                // the echo alone would (its receive's credits come from this demand).
                .concatMap(answer -> answer, endpoint.capabilities().receiveQueueDepth());
        endpoint.send(out).subscribe(null, e -> { });
        endpoint.onClose().subscribe(null, e -> data.close(), data::close);
    }

    /**
     * The requesting side, over two connections to a server that {@link #serve}s: {@code echoes} carries the
     * request-responses, {@code streams} the streams.
     */
    static Requesting<Buffer> requesting(Endpoint echoes, Endpoint streams) {
        return new Client(echoes, streams);
    }

    private static final class Client implements Requesting<Buffer> {

        private final RivuletSide.Prepared data;
        private final Endpoint streams;
        /** Requests awaiting their echo, oldest first: filled by whichever thread requests, drained on the loop. */
        private final MpscUnboundedArrayQueue<MonoSink<Buffer>> waiting = new MpscUnboundedArrayQueue<>(1024);
        /** The requests, in the order they wait in; emitted under this client's lock, so never concurrently. */
        private final Sinks.Many<Buffer> out = Sinks.many().unicast()
                .onBackpressureBuffer(new MpscUnboundedArrayQueue<>(1024));

        Client(Endpoint endpoint, Endpoint streams) {
            this.data = new RivuletSide.Prepared(endpoint.memory());
            this.streams = streams;
            endpoint.send(out.asFlux()).subscribe(null, e -> { });
            endpoint.receive().subscribe(answer -> {
                MonoSink<Buffer> request = waiting.poll();
                if (request != null) {
                    request.success(answer); // read by the driver inside this onNext, where the answer is lent
                }
            });
            endpoint.onClose().subscribe(null, e -> data.close(), data::close);
        }

        @Override
        public Publisher<Buffer> requestResponse(int size) {
            return Mono.create(request -> {
                // The order requests wait in must be the order they are sent in.
                synchronized (this) {
                    waiting.offer(request);
                    out.tryEmitNext(data.retained(size)).orThrow();
                }
            });
        }

        @Override
        public Publisher<Buffer> requestStream(long count, int size) {
            // The messages are lent to the subscriber by receive() itself, under its demand; none arrives before
            // the receive grants credits, nor beyond the count asked for.
            return streams.send(StreamRequest.encode(count, size)).thenMany(streams.receive().take(count));
        }

        @Override
        public int dataLength(Buffer answer) {
            return answer.length();
        }

        @Override
        public void done(Buffer answer) {
            // Lent for its onNext, as receive() buffers are: nothing to give back.
        }
    }
}
