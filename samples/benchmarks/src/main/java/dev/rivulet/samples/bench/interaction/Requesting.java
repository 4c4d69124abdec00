package dev.rivulet.samples.bench.interaction;

import org.reactivestreams.Publisher;

/**
 * One implementation's requester as {@link InteractionDriver} drives it: requests built from data prepared once, and
 * what the answers' contract asks of their subscriber.
 *
 * @param <P> the implementation's payload type
 */
interface Requesting<P> {

    /** One request-response whose request carries {@code size} data bytes; the responder answers as many. */
    Publisher<P> requestResponse(int size);

    /** One request-stream answered by {@code count} payloads of {@code size} data bytes. */
    Publisher<P> requestStream(long count, int size);

    /** The data bytes of an answer. */
    int dataLength(P answer);

    /** What the subscriber owes an answer once it has read it (a release, or nothing for a lent payload). */
    void done(P answer);
}
