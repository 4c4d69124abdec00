package dev.rivulet.core;

import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.memory.RegisteredSlice;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.core.memory.RemoteRead;
import dev.rivulet.core.memory.RemoteWrite;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

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
 *
 * <p>Buffers: {@code send} takes the buffer's reference; {@code receive()} lends each buffer until {@code onNext}
 * returns ({@link BufferFlux}). Local memory of {@code put} and {@code get} stays the caller's; it must not be reused
 * before the operation completes.
 */
public interface Endpoint extends Disposable {

    /**
     * Sends one message. Takes ownership of {@code buffer}'s reference and releases it when the provider is done
     * with the memory, even if the returned {@code Mono} is cancelled earlier. Completes as
     * {@link Capabilities#sendCompletion()} says for this transport: {@link Completion#REMOTE} when the message
     * is in a buffer the receiver posted, {@link Completion#LOCAL} when the transport has taken the bytes. The buffer
     * went with the first subscription, so a second
     * one fails with {@link dev.rivulet.core.error.InvalidRequestException}; to retry a send, build its buffer inside
     * {@code Mono.defer}, or use {@link #send(byte[])}, which allocates per subscription.
     */
    Mono<Void> send(Buffer buffer);

    /**
     * Sends {@code bytes} as one message: each subscription copies them into a pooled buffer of its own, so the
     * {@code Mono} can be retried.
     */
    default Mono<Void> send(byte[] bytes) {
        if (bytes == null) {
            return Mono.error(new dev.rivulet.core.error.InvalidRequestException("bytes are null"));
        }
        return Mono.defer(() -> send(memory().allocate(bytes.length).write(bytes)));
    }

    /** Sends {@code text} as one UTF-8 message (per subscription, as {@link #send(byte[])}). */
    default Mono<Void> send(String text) {
        if (text == null) {
            return Mono.error(new dev.rivulet.core.error.InvalidRequestException("text is null"));
        }
        return send(text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Sends {@code bytes}' remaining bytes as one message (per subscription, as {@link #send(byte[])}); the buffer's
     * position is not moved.
     */
    default Mono<Void> send(ByteBuffer bytes) {
        if (bytes == null) {
            return Mono.error(new dev.rivulet.core.error.InvalidRequestException("bytes are null"));
        }
        return Mono.defer(() -> send(memory().allocate(bytes.remaining()).write(bytes)));
    }

    /** Streams each array as one message, as {@link #send(Publisher)} does with buffers. */
    default Mono<Void> sendByteArray(Publisher<byte[]> messages) {
        if (messages == null) {
            return Mono.error(new dev.rivulet.core.error.InvalidRequestException("publisher is null"));
        }
        return send(Flux.from(messages).map(bytes -> memory().allocate(bytes.length).write(bytes)));
    }

    /** Streams each string as one UTF-8 message, as {@link #send(Publisher)} does with buffers. */
    default Mono<Void> sendString(Publisher<String> messages) {
        if (messages == null) {
            return Mono.error(new dev.rivulet.core.error.InvalidRequestException("publisher is null"));
        }
        return sendByteArray(Flux.from(messages).map(t -> t.getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * Streams messages: requests from {@code buffers} only as many as there are free send slots, and as many more as
     * completed, in batches of a quarter of the send prefetch. Completes after the last message completed; fails
     * (cancelling upstream) on the first failure. Where messages are made from application objects,
     * {@link #send(Publisher, int, MessageEncoder)} writes them in place instead, with no buffer per message.
     */
    Mono<Void> send(Publisher<Buffer> buffers);

    /**
     * Streams messages written in place: each item of {@code items} is one message, which {@code encoder} writes
     * straight into its final place in the outgoing frame (a {@link MessageClaim} of {@code maxMessageSize} bytes)
     * on the progress thread, so a message costs no buffer of its own and is written once. Transports that coalesce
     * small messages pack as many encoded messages into one frame as the peer's credits and the frame allow;
     * the others send each from a pooled buffer the encoder writes into.
     *
     * <p>Backpressure as with {@link #send(Publisher)}: items are requested in batches, only as far as credits and
     * send slots let messages leave. Completes after the last message completed; an encoder that throws ends the
     * {@code Mono} with what it threw, cancelling upstream (the messages encoded before it are sent and the endpoint
     * stays open); cancelling stops requesting and drops the items not yet encoded. Messages of this stream are
     * ordered among themselves; operations issued on the endpoint meanwhile may go before items that had not been
     * encoded yet.
     *
     * @param maxMessageSize the most bytes one message may take, at most {@link Capabilities#maxMessageSize()} (a
     *                       larger value fails the {@code Mono} with {@code MessageTooLargeException}); keep it close
     *                       to the largest message, as each frame keeps that much room free for the next one
     */
    <T> Mono<Void> send(Publisher<T> items, int maxMessageSize, MessageEncoder<? super T> encoder);

    /**
     * Messages from the peer. Each {@link Buffer} is lent: a view onto the memory the message arrived in, valid on
     * the thread that calls {@code onNext} until {@code onNext} returns, whatever operators do with it. Used on
     * another thread, or after its {@code onNext}, it fails with
     * {@link dev.rivulet.core.error.InvalidMemoryException} (see {@link Buffer} for the one case only paranoid leak
     * detection finds). {@link BufferFlux#retain()} keeps buffers past {@code onNext} (the subscriber then releases
     * them), {@link BufferFlux#asByteArray()} and {@link BufferFlux#asString()} copy them out. Demand of {@code n}
     * posts up to {@code n} receive buffers (at most the receive queue depth) and grants the peer that many credits, so a slow subscriber slows the sender. One subscriber at a time; a later subscriber gets
     * messages that arrived after the previous one cancelled. Completes when the peer closes the endpoint
     * gracefully.
     */
    BufferFlux receive();

    /**
     * Writes {@code local} into the peer's memory at {@code remote} ({@code local.length() <= remote.length()}).
     * Completes as {@link Capabilities#putCompletion()} says: {@link Completion#REMOTE} when the bytes are in the
     * target's memory, {@link Completion#LOCAL} when {@code local} may be reused (follow with {@link #flush()} for
     * remote completion on every transport).
     *
     * <p>A put longer than {@link Capabilities#maxRmaSize()} goes as consecutive pieces of at most that size, each
     * taking a send slot, while operations issued after it wait behind it; it completes when every piece completed
     * and fails with the first piece's failure, its memory staying pinned until the pieces already posted have
     * finished. Cancelling it posts no further piece. The remote window is checked for the whole range first.
     */
    Mono<Void> put(RegisteredSlice local, RemoteMemory remote);

    /**
     * Streams puts: requests from {@code writes} only as many as there are free send slots and one more per
     * completed put, so bulk writes cost no {@code Mono} per put. Each element is checked like
     * {@link #put(RegisteredSlice, RemoteMemory)}; the caller keeps ownership of the local memory and must not
     * reuse it before the returned {@code Mono} ends. Completes after the last put completed, in the sense a single
     * put's completion has on this transport (follow with {@link #flush()} where remote completion must hold on
     * every transport); fails, cancelling upstream, on the first failure, once the puts already posted have
     * finished. Cancelling the {@code Mono} cancels upstream; puts already posted still finish, and their memory
     * stays pinned until they have ({@link dev.rivulet.core.memory.MemoryRegion#whenUnpinned()}). A write longer
     * than {@link Capabilities#maxRmaSize()} goes in pieces, as a single put does.
     */
    Mono<Void> put(Publisher<RemoteWrite> writes);

    /**
     * Reads {@code local.length()} bytes of the peer's memory at {@code remote} into {@code local}
     * ({@code local.length() <= remote.length()}); completes when the bytes are in {@code local}. A get longer than
     * {@link Capabilities#maxRmaSize()} goes in pieces, as a put does ({@link #put(RegisteredSlice, RemoteMemory)}).
     */
    Mono<Void> get(RemoteMemory remote, RegisteredSlice local);

    /**
     * Streams gets, the mirror of {@link #put(Publisher)}: requests from {@code reads} only as many as there are
     * free send slots (the send prefetch), and as many more as completed, in batches of a quarter of the prefetch,
     * so bulk reads cost no {@code Mono} per get. Each element is checked like
     * {@link #get(RemoteMemory, RegisteredSlice)}, and one longer than {@link Capabilities#maxRmaSize()} goes in
     * pieces. Reads may complete in any order; the caller owns the local memory and must not use it before the
     * returned {@code Mono} ends. Completes after the last get completed, with every byte read in its local slice;
     * fails, cancelling upstream, on the first failure, once the gets already posted have finished. Cancelling the
     * {@code Mono} cancels upstream; gets already posted still finish and may write their destinations until then:
     * {@link dev.rivulet.core.memory.MemoryRegion#whenUnpinned()} says when a destination is the caller's again.
     */
    Mono<Void> get(Publisher<RemoteRead> reads);

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
     * Completes when every operation issued on this endpoint before it has completed, with the meaning
     * {@link Capabilities#flushCompletion()} gives (UCT's flush): with {@link Completion#REMOTE}, messages are in the
     * peer's buffers and puts and atomics applied to its memory; with {@link Completion#LOCAL} (libfabric, whose
     * providers report a send's transmission only), puts and atomics are applied and sends are on their way.
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

    /** Completes when the endpoint is closed, whichever side closed it and why ({@link #closeReason()} says). */
    Mono<Void> onClose();

    /**
     * Emits why the endpoint closed once it has: this side closed it, the peer closed it, or the connection failed,
     * with the error pending operations were failed with.
     */
    Mono<CloseReason> closeReason();

    /**
     * Closes now: tells the peer (its {@code receive()} completes), fails every operation not yet completed with
     * {@link dev.rivulet.core.error.ResourceClosedException}, and releases buffers once the provider no longer
     * touches them. Does not wait; {@link #onClose()} completes when it is done. For a close that lets operations
     * finish first, use {@link #closeGracefully(Duration)}.
     */
    @Override
    void dispose();

    /**
     * Closes once the operations already issued have finished: new operations are refused from now on
     * ({@link dev.rivulet.core.error.ResourceClosedException}), those issued before complete (or fail) as they
     * would have, then the endpoint closes as {@link #dispose()} does. Whatever is still pending after
     * {@code timeout} is failed and the endpoint closes anyway. The returned {@code Mono} starts the close on
     * subscription and completes once the endpoint is closed; it never blocks a polling thread.
     */
    Mono<Void> closeGracefully(Duration timeout);
}
