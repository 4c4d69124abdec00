package dev.rivulet.core;

import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.memory.RegisteredSlice;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.core.memory.RemoteWrite;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A connection to one peer (UCT's endpoint), made reactive.
 *
 * <p>Every method is lazy: nothing is posted until the returned publisher is subscribed, and each subscription posts
 * once. Signals arrive on the transport's progress thread; move heavy work off it with {@code publishOn}.
 *
 * <p>Flow control is end to end. {@link #receive()} turns its subscriber's demand into posted receive buffers and
 * grants the peer one credit per buffer; a sender never has more messages in flight than it was granted, and
 * operations that find no credit or no queue slot wait in order in a per-endpoint FIFO instead of failing.
 *
 * <p>Failures are {@link dev.rivulet.core.error.TransportException}s delivered as {@code onError}. When the endpoint
 * closes (either side, or the peer vanishes) every pending signal terminates.
 */
public interface Endpoint extends Disposable {

    /**
     * Sends one message. Takes ownership of {@code buffer}'s reference and releases it when the provider is done
     * with the memory, even if the returned {@code Mono} is cancelled earlier. Completes when the message was
     * delivered into a buffer the receiver posted.
     */
    Mono<Void> send(Buffer buffer);

    /**
     * Streams messages: requests from {@code buffers} only as many as there are free send slots and one more per
     * completion. Completes after the last message completed; fails (cancelling upstream) on the first failure.
     */
    Mono<Void> send(Publisher<Buffer> buffers);

    /**
     * Messages from the peer, each a {@link Buffer} the subscriber must release. Demand of {@code n} posts up to
     * {@code n} receive buffers (at most the receive queue depth) and grants the peer that many credits, so a slow
     * subscriber slows the sender. One subscriber at a time; a later subscriber gets messages that arrived after
     * the previous one cancelled. Completes when the peer closes the endpoint gracefully.
     */
    Flux<Buffer> receive();

    /** Writes {@code local} into the peer's memory at {@code remote} ({@code local.length() <= remote.length()}). */
    Mono<Void> put(RegisteredSlice local, RemoteMemory remote);

    /**
     * Streams puts: requests from {@code writes} only as many as there are free send slots and one more per
     * completed put, so bulk writes cost no {@code Mono} per put. Each element is checked like
     * {@link #put(RegisteredSlice, RemoteMemory)}; the caller keeps ownership of the local memory and must not
     * reuse it before the returned {@code Mono} ends. Completes after the last put completed, in the sense a single
     * put's completion has on this transport (follow with {@link #flush()} where remote completion must hold on
     * every transport); fails, cancelling upstream, on the first failure, once the puts already posted have
     * finished.
     */
    Mono<Void> put(Publisher<RemoteWrite> writes);

    /** Reads {@code local.length()} bytes of the peer's memory at {@code remote} into {@code local}. */
    Mono<Void> get(RemoteMemory remote, RegisteredSlice local);

    /** Atomically adds {@code delta} to the 64-bit word at {@code remote}. */
    Mono<Void> add(RemoteMemory remote, long delta);

    /** Atomically adds {@code delta} to the 64-bit word at {@code remote}; emits the previous value. */
    Mono<Long> fetchAdd(RemoteMemory remote, long delta);

    /** 64-bit compare-and-swap; emits the previous value (equal to {@code expected} when the swap happened). */
    Mono<Long> compareAndSwap(RemoteMemory remote, long expected, long desired);

    /** 64-bit swap; emits the previous value. */
    Mono<Long> swap(RemoteMemory remote, long value);

    /** 32-bit fetch-and-add where {@link Capabilities} lists it; emits the previous value sign-extended. */
    Mono<Long> fetchAdd32(RemoteMemory remote, int delta);

    /** 32-bit compare-and-swap where supported; emits the previous value sign-extended. */
    Mono<Long> compareAndSwap32(RemoteMemory remote, int expected, int desired);

    /** 32-bit swap where supported; emits the previous value sign-extended. */
    Mono<Long> swap32(RemoteMemory remote, int value);

    /**
     * Completes when every operation issued on this endpoint before it has completed remotely: messages delivered
     * into the peer's buffers, puts and atomics applied to the peer's memory (UCT's flush). See
     * {@link Capabilities#flushGuarantee()} for the transport's exact promise.
     */
    Mono<Void> flush();

    /**
     * Orders: operations issued after the fence start only after those issued before it completed. Completes when
     * the fence has been passed.
     */
    Mono<Void> fence();

    /**
     * Lets this endpoint's peer reach {@code window} with {@code rights} (remote read, write, atomics): send it
     * {@code grant.remote()} (for example as a message, {@link RemoteMemory#toBytes()}). The grant has its own random
     * key and answers only requests arriving on this connection, for exactly this window and these rights; it is
     * revoked by {@link Grant#close()}, by closing the region, and when this endpoint closes. Where the provider
     * checks keys itself the connection cannot be checked ({@link Capabilities#grantScopeChecked()}): there the
     * grant is as private as its key.
     *
     * @throws dev.rivulet.core.error.InvalidMemoryException when the region was not registered for these rights or
     *                                                       is closed
     * @throws dev.rivulet.core.error.ResourceClosedException when the endpoint is closed
     */
    Grant grant(RegisteredSlice window, Access... rights);

    Capabilities capabilities();

    /** Registered memory usable with this endpoint. */
    MemoryDomain memory();

    /** The peer's address as the transport names it. */
    String remoteAddress();

    /** A snapshot of flow-control counters (credits, in-flight, pending). */
    Mono<EndpointStats> stats();

    /** Completes when the endpoint is closed, whichever side closed it. */
    Mono<Void> onClose();

    /**
     * Closes gracefully: tells the peer (its {@code receive()} completes), fails every operation not yet
     * completed with {@link dev.rivulet.core.error.ResourceClosedException}, and releases buffers once the
     * provider no longer touches them.
     */
    @Override
    void dispose();
}
