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
 * @param flushGuarantee     what a completed {@code flush()} promises on this transport, in words
 * @param maxRmaSize         largest put or get
 * @param remoteAccessChecked whether the target side enforces remote keys, bounds and rights on one-sided
 *                           operations (false where the provider cannot, e.g. libfabric's {@code shm}, whose peers
 *                           copy with process_vm_writev and ignore keys: exposure is then the OS's process trust)
 */
public record Capabilities(String transport, Set<Operation> operations, long maxMessageSize, int maxInlineSize,
                           int maxIov, Set<Ordering> ordering, int sendQueueDepth, int receiveQueueDepth,
                           double bandwidth, Duration latency, String flushGuarantee, long maxRmaSize,
                           boolean remoteAccessChecked) {

    public Capabilities {
        operations = operations.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(operations));
        ordering = ordering.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(ordering));
    }

    /** Capabilities of a transport whose RMA limit equals its message limit and whose targets check keys. */
    public Capabilities(String transport, Set<Operation> operations, long maxMessageSize, int maxInlineSize,
                        int maxIov, Set<Ordering> ordering, int sendQueueDepth, int receiveQueueDepth,
                        double bandwidth, Duration latency, String flushGuarantee) {
        this(transport, operations, maxMessageSize, maxInlineSize, maxIov, ordering, sendQueueDepth,
                receiveQueueDepth, bandwidth, latency, flushGuarantee, maxMessageSize, true);
    }

    public boolean supports(Operation op) {
        return operations.contains(op);
    }

    /** The same capabilities with the queue depths an endpoint really uses. */
    public Capabilities withQueueDepths(int send, int receive) {
        return new Capabilities(transport, operations, maxMessageSize, maxInlineSize, maxIov, ordering, send, receive,
                bandwidth, latency, flushGuarantee, maxRmaSize, remoteAccessChecked);
    }
}
