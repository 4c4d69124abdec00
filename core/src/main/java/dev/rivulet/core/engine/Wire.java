package dev.rivulet.core.engine;

import dev.rivulet.core.Capabilities;
import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.credit.CreditGate;
import dev.rivulet.core.memory.AccessScope;
import org.jspecify.annotations.Nullable;

/**
 * What a backend implements per connection: UCT's transport-level endpoint, one native queue pair. The
 * {@link EndpointEngine} above it holds everything transport-neutral (the credit ledger, the pending FIFO, the
 * reactive signals), so a wire only posts, polls and reports.
 *
 * <p>Every method is called on the endpoint's progress thread only, and a wire never calls back from a post
 * method: completions are reported from {@link #poll(WireEvents)}. Post methods return {@link #POSTED} (a
 * completion will follow), {@link #DONE} (completed already, nothing will follow) or {@link #NO_RESOURCE} (nothing
 * happened; the engine parks the op and retries after the next poll), and throw a
 * {@link dev.rivulet.core.error.TransportException} for anything that can never succeed.
 *
 * <p>A wire is its connection's {@link AccessScope}: grants made on its endpoint answer requests it passes to
 * {@link dev.rivulet.core.memory.MemoryDomain#resolveRemote} with itself as the requester.
 */
public interface Wire extends AccessScope {

    int DONE = 0;
    int POSTED = 1;
    int NO_RESOURCE = 2;

    /**
     * Sends one message carrying {@code controlWord}. {@code op} is the {@link OpKind#SEND} being posted, or
     * {@code null} for protocol-only words (credit grants, close) whose payload is empty; a wire reports the
     * completion of those through {@link WireEvents#controlCompleted()} when it returned {@link #POSTED}.
     */
    int send(long controlWord, @Nullable Op op);

    /**
     * Hands this wire its connection's credit gate, once, before anything is posted or polled. A wire that reads a
     * message before it has memory for it (a byte stream, a shared ring) passes each arriving message through the
     * gate ({@link CreditGate#admit}, {@link CreditGate#admitBatch}) so that a peer without a credit costs no
     * buffer; the engine checks whatever a wire hands it without having admitted it, so other wires ignore this.
     */
    default void attach(CreditGate gate) {
    }

    /**
     * Makes room for {@code count} more data messages from the peer (post receive buffers). The gate counts them as
     * credits already: a wire needs no count of its own.
     */
    void postReceives(int count);

    /**
     * How many receives this wire may have posted at once right now, at most: where each posted receive holds a
     * buffer (libfabric's eager buffers), a peer that has not authenticated is granted only what its receive budget
     * covers until it has sent as much ({@code dev.rivulet.core.admission.ReceiveBudget}). The engine asks again after
     * every arrival. Wires that take memory only as messages arrive need no limit.
     */
    default int receiveWindow() {
        return Integer.MAX_VALUE;
    }

    /** Posts a put, get or atomic (by {@link Op#kind()}). */
    int rma(Op op);

    /**
     * Posts whatever makes the operations completed so far remotely complete (nothing, where local completion
     * already implies it). Called only when nothing else is in flight.
     */
    int flush(Op op);

    /**
     * Largest coalesced frame ({@link ControlWord#BATCH}) this wire can carry in one send, or 0 when it does not
     * coalesce. A receiver must be able to land a frame of this size in one posted receive.
     */
    default int maxBatchBytes() {
        return 0;
    }

    /**
     * Whether {@link #send} may be handed a message in two parts ({@link Op#body()} after {@link Op#buffer()}), which
     * the wire writes as one message as it copies it out, so that a payload reaches the wire without being copied
     * behind a header first. For a wire that does not, the engine joins the parts into one buffer just before it
     * posts the send.
     */
    default boolean gathers() {
        return false;
    }

    /** Reaps completions and arrivals; returns how many. */
    int poll(WireEvents events);

    /** What this connection can do (queue depths as configured). */
    Capabilities capabilities();

    /** The peer's address for display. */
    String remoteAddress();

    /**
     * Tears the connection down. Operations still posted must afterwards be reported by {@link #poll} as failed
     * (flushed), or completed if they did complete; the engine polls once more after closing.
     */
    void close();
}
