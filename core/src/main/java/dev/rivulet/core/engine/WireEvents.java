package dev.rivulet.core.engine;

import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.Buffer;

/** What a {@link Wire} reports from {@link Wire#poll}. */
public interface WireEvents {

    /** A posted op completed; {@code value} is the previous value for fetching atomics, else 0. */
    void completed(Op op, long value);

    /** A posted op failed. */
    void failed(Op op, TransportException error);

    /** A posted protocol-only word ({@code send(word, null)}) completed. */
    void controlCompleted();

    /**
     * A message arrived. {@code payload} holds the data (length set) for {@link ControlWord#DATA}, and is
     * {@code null} for protocol-only words; ownership passes to the engine.
     */
    void received(long controlWord, Buffer payload);

    /** The connection is gone (peer vanished, provider error); the engine closes the endpoint with this cause. */
    void broken(TransportException cause);
}
