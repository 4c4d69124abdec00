package dev.rivulet.samples.bench.interaction;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.interaction.Interactions;
import dev.rivulet.core.interaction.Payload;
import dev.rivulet.core.interaction.Requester;
import dev.rivulet.core.interaction.Responder;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Rivulet's side: the responder a server endpoint answers with and the requester of a client endpoint, both
 * building every payload from registered buffers prepared once per endpoint ({@code Payload.of(buffer.retain())}:
 * a reference per payload, released by the session once the bytes are in the outgoing frame), and reading answers
 * where they are lent (nothing to release).
 */
final class RivuletSide {

    private RivuletSide() {
    }

    /** Serves {@code endpoint}'s requests; its prepared buffers go when the endpoint closes. */
    static void serve(Endpoint endpoint) {
        Prepared data = new Prepared(endpoint.memory());
        Interactions.server(endpoint, new Answers(data));
        endpoint.onClose().subscribe(null, e -> data.close(), data::close);
    }

    /** The requesting side of a connected {@code endpoint}. */
    static Requesting<Payload> requesting(Endpoint endpoint) {
        return new Client(Interactions.client(endpoint), new Prepared(endpoint.memory()));
    }

    /** One registered buffer per size in {@link StreamRequest#SIZES}, filled once. */
    static final class Prepared implements AutoCloseable {

        private final Buffer[] buffers = new Buffer[StreamRequest.SIZES.length];

        Prepared(MemoryDomain memory) {
            for (int i = 0; i < StreamRequest.SIZES.length; i++) {
                buffers[i] = memory.allocate(StreamRequest.SIZES[i]).length(StreamRequest.SIZES[i]);
                buffers[i].capacitySegment().fill((byte) 0x5a);
            }
        }

        /** A payload of {@code size} prepared bytes, holding a reference of its own. */
        Payload payload(int size) {
            return Payload.of(retained(size));
        }

        /** The buffer of {@code size} prepared bytes, with a reference for the caller. */
        Buffer retained(int size) {
            return buffers[StreamRequest.sizeIndex(size)].retain();
        }

        @Override
        public void close() {
            for (Buffer b : buffers) {
                b.release();
            }
        }
    }

    /** Answers a request-response with as many bytes as it carried, a request-stream as it asks. */
    private record Answers(Prepared data) implements Responder {

        @Override
        public Mono<Payload> requestResponse(Payload request) {
            return Mono.just(data.payload(request.dataLength()));
        }

        @Override
        public Flux<Payload> requestStream(Payload request) {
            long count = StreamRequest.count(request.data());
            int size = StreamRequest.size(request.data());
            return StreamRequest.answer(count, size, data::payload);
        }
    }

    private record Client(Requester requester, Prepared data) implements Requesting<Payload> {

        @Override
        public Publisher<Payload> requestResponse(int size) {
            return requester.requestResponse(data.payload(size));
        }

        @Override
        public Publisher<Payload> requestStream(long count, int size) {
            return requester.requestStream(Payload.of(StreamRequest.encode(count, size)));
        }

        @Override
        public int dataLength(Payload answer) {
            return answer.dataLength();
        }

        @Override
        public void done(Payload answer) {
            // Lent for its onNext, as receive() buffers are: nothing to give back.
        }
    }
}
