package dev.rivulet.samples.bench.interaction;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.memory.Buffer;
import org.jctools.queues.MpscUnboundedArrayQueue;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.publisher.Sinks;

/**
 * The bound of the interaction measurements on one transport: the same requests and answers as plain messages of an
 * endpoint, with no interaction layer between (no stream ids, frames, stream table, routing or per-stream credits).
 * The server echoes every message it receives; the requester sends each request through one long-lived
 * {@code send(Publisher)} and matches answers to requests by their order, which an echo keeps. What the interaction
 * layer costs on top of the transport is the difference between this and {@link RivuletSide}.
 */
final class EchoSide {

    private EchoSide() {
    }

    /** Echoes every message {@code endpoint} receives, in order, until it closes. */
    static void serve(Endpoint endpoint) {
        // A received message is lent for its onNext: retain() keeps it (a reference, or a copy of a packed record)
        // until its echo is in the outgoing frame.
        endpoint.send(endpoint.receive().map(Buffer::retain)).subscribe(null, e -> { });
    }

    /** The requesting side of a connected {@code endpoint} whose peer echoes. */
    static Requesting<Buffer> requesting(Endpoint endpoint) {
        return new Client(endpoint);
    }

    private static final class Client implements Requesting<Buffer> {

        private final RivuletSide.Prepared data;
        /** Requests awaiting their echo, oldest first: filled by whichever thread requests, drained on the loop. */
        private final MpscUnboundedArrayQueue<MonoSink<Buffer>> waiting = new MpscUnboundedArrayQueue<>(1024);
        /** The requests, in the order they wait in; emitted under this client's lock, so never concurrently. */
        private final Sinks.Many<Buffer> out = Sinks.many().unicast()
                .onBackpressureBuffer(new MpscUnboundedArrayQueue<>(1024));

        Client(Endpoint endpoint) {
            this.data = new RivuletSide.Prepared(endpoint.memory());
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
            throw new UnsupportedOperationException("the echo bound has no request-stream");
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
