package dev.rivulet.core;

/**
 * Writes one item as one message straight into its place in an outgoing frame, for
 * {@link Endpoint#send(org.reactivestreams.Publisher, int, MessageEncoder)}. Runs on the endpoint's progress thread,
 * so it must be quick and must not block; items are encoded in the order they were emitted.
 *
 * @param <T> what the publisher emits
 */
@FunctionalInterface
public interface MessageEncoder<T> {

    /**
     * Writes {@code item} into {@code claim} and returns the message's length: the bytes from index 0 to that length
     * are sent, at most {@link MessageClaim#capacity()}. Whatever it throws (a write out of bounds included) ends the
     * send with that error; the messages encoded before this one are still sent.
     */
    int encode(T item, MessageClaim claim);
}
