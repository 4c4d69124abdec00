package dev.rivulet.core;

/**
 * What an operation's completion means on a transport ({@link Capabilities#sendCompletion()},
 * {@link Capabilities#putCompletion()}, {@link Capabilities#flushCompletion()}); libfabric calls these completion
 * levels {@code FI_TRANSMIT_COMPLETE} and {@code FI_DELIVERY_COMPLETE}.
 */
public enum Completion {
    /**
     * The transport has taken the bytes: the local memory may be reused, and they are on their way (in the kernel's
     * socket buffer, on the wire, in the provider's queue). Where {@link Capabilities#flushCompletion()} is
     * {@link #REMOTE}, a later {@code flush()} completes once they are at the peer.
     */
    LOCAL,
    /**
     * The bytes are at the target: a message sits in a buffer the receiver posted, a put or an atomic is applied to
     * the target's memory.
     */
    REMOTE
}
