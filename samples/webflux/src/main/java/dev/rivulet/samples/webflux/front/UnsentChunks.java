package dev.rivulet.samples.webflux.front;

import org.jspecify.annotations.Nullable;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The chunks of one GET body that their gets have filled and the response has not taken yet, each held here, by its
 * index in the block, until the response takes it or the body ends; whatever is still here when the body ends is
 * released, and a chunk that arrives after that is released at once.
 *
 * <p>Why the chunks are not simply carried through the Reactor pipeline and released by {@code doOnDiscard}: between a
 * finished get and the response, two places drop a value on the floor when the response is cancelled at the wrong
 * moment, without calling the discard hooks. {@code flatMapSequential} abandons the values waiting in its reordering
 * queues on cancel (a chunk that finished before the one ahead of it), and {@code Mono.create}'s {@code success}
 * racing the cancel of its subscriber hands the value to {@code onNextDropped} instead of discarding it. What travels
 * through the pipeline is the chunk's index, which costs nothing to lose; the buffer stays here.
 *
 * <p>Exactly one of {@link #take}, {@link #close} and a late {@link #put} ends up with each chunk: each claims it by
 * removing it from the map.
 */
final class UnsentChunks {

    private final Map<Integer, DataBuffer> held = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** Holds {@code chunk}, the block's chunk number {@code index}, for the response; takes over its reference. */
    void put(int index, DataBuffer chunk) {
        held.put(index, chunk);
        if (closed) {
            // The body ended meanwhile; if close() ran before the put, no one else will release it.
            release(index);
        }
    }

    /** Chunk {@code index} for the response, which takes over its reference; null once the body has ended. */
    @Nullable DataBuffer take(int index) {
        return held.remove(index);
    }

    /** The body ended: releases every chunk not taken, now and as they arrive. */
    void close() {
        closed = true;
        held.keySet().forEach(this::release);
    }

    /** How many chunks are held, not yet taken by the response. */
    int size() {
        return held.size();
    }

    private void release(int index) {
        DataBuffer chunk = held.remove(index);
        if (chunk != null) {
            DataBufferUtils.release(chunk);
        }
    }
}
