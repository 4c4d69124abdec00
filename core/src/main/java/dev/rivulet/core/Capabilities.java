package dev.rivulet.core;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

/**
 * What a transport can do and roughly how fast, so callers can choose (UCT's interface attributes).
 *
 * @param transport          provider name, e.g. {@code local}, {@code libfabric/tcp}, {@code io_uring}
 * @param operations         operations offered; anything else fails fast with {@code OperationNotSupportedException}
 * @param maxMessageSize     largest {@code send} payload; larger ones fail with {@code MessageTooLargeException}
 * @param maxInlineSize      payloads up to this size are copied at post time (the buffer is free on return)
 * @param maxIov             scatter/gather entries per operation
 * @param ordering           ordering guarantees between operations of one endpoint
 * @param sendQueueDepth     operations an endpoint keeps in flight before parking further ones
 * @param receiveQueueDepth  receive buffers an endpoint posts at most, hence the most credits it grants
 * @param bandwidth          estimated bandwidth in bytes per second
 * @param latency            estimated one-way latency of a small message
 * @param sendCompletion     what a completed {@code send} means here
 * @param putCompletion      what a completed {@code put} means here (a {@code get} and an atomic always complete
 *                           with the data at hand, so remotely)
 * @param flushCompletion    what a completed {@code flush()} means for every operation issued before it
 * @param maxRmaSize         largest put or get
 * @param remoteAccessChecked whether the target side enforces remote keys, bounds and rights on one-sided
 *                           operations (false where the provider cannot, e.g. libfabric's {@code shm}, whose peers
 *                           copy with process_vm_writev and ignore keys: exposure is then the OS's process trust)
 * @param remoteKeyBits      how many bits of a remote key a peer would have to guess: 64 where Rivulet draws every
 *                           grant's key from a CSPRNG and the target checks all of it, fewer where the provider keeps
 *                           only part of a key, 0 where the provider numbers keys itself ({@code FI_MR_PROV_KEY}:
 *                           1, 2, 3...) or does not check them; with 0, only peer authentication keeps strangers out
 * @param grantScopeChecked  whether the target checks that a key granted to one connection arrives on that
 *                           connection ({@code Endpoint.grant}); false where the provider checks keys itself, and a
 *                           scoped grant is then as private as its key
 * @param refusalClosesConnection whether a one-sided operation the target refuses also ends the connection: RDMA
 *                           reliable connections go to an error state on a remote access error (verbs RC), and
 *                           libfabric's {@code tcp} drops its connection; Rivulet then closes the endpoint with
 *                           {@code ConnectionLostException} right after failing the refused operation, instead of
 *                           letting the next operations fail at random
 */
public record Capabilities(String transport, Set<Operation> operations, long maxMessageSize, int maxInlineSize,
                           int maxIov, Set<Ordering> ordering, int sendQueueDepth, int receiveQueueDepth,
                           double bandwidth, Duration latency, Completion sendCompletion,
                           Completion putCompletion, Completion flushCompletion, long maxRmaSize,
                           boolean remoteAccessChecked, int remoteKeyBits, boolean grantScopeChecked,
                           boolean refusalClosesConnection) {

    public Capabilities {
        java.util.Objects.requireNonNull(sendCompletion, "sendCompletion");
        java.util.Objects.requireNonNull(putCompletion, "putCompletion");
        java.util.Objects.requireNonNull(flushCompletion, "flushCompletion");
        operations = operations.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(operations));
        ordering = ordering.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(ordering));
    }

    /**
     * Capabilities of a transport whose RMA limit equals its message limit, whose flush completes remotely, and
     * whose targets check every grant in software: 64-bit random keys, the window, the rights and the connection.
     */
    public Capabilities(String transport, Set<Operation> operations, long maxMessageSize, int maxInlineSize,
                        int maxIov, Set<Ordering> ordering, int sendQueueDepth, int receiveQueueDepth,
                        double bandwidth, Duration latency, Completion sendCompletion, Completion putCompletion) {
        this(transport, operations, maxMessageSize, maxInlineSize, maxIov, ordering, sendQueueDepth,
                receiveQueueDepth, bandwidth, latency, sendCompletion, putCompletion, Completion.REMOTE,
                maxMessageSize, true, 64, true, false);
    }

    public boolean supports(Operation op) {
        return operations.contains(op);
    }

    /** The same capabilities with the queue depths an endpoint really uses. */
    public Capabilities withQueueDepths(int send, int receive) {
        return new Capabilities(transport, operations, maxMessageSize, maxInlineSize, maxIov, ordering, send, receive,
                bandwidth, latency, sendCompletion, putCompletion, flushCompletion, maxRmaSize, remoteAccessChecked,
                remoteKeyBits, grantScopeChecked, refusalClosesConnection);
    }
}
