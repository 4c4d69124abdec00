package dev.rivulet.conformance;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RegisteredSlice;
import dev.rivulet.core.memory.RemoteMemory;
import org.reactivestreams.Publisher;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;

/**
 * TCK subscriber rules on the subscriber of a streamed one-sided method ({@code put(Publisher)},
 * {@code get(Publisher)}): every element moves 16 bytes between the client's memory and one of 64 slots of a window
 * the server registered and granted with {@code right}.
 *
 * @param <T> the element type the endpoint consumes
 */
public abstract class OneSidedSubscriberTck<T> extends EndpointSubscriberTck<T> {

    private static final int WINDOW = 16;
    private static final int SLOTS = 64;

    private final Access right;
    private final Arena arena = Arena.ofShared();
    private final List<MemoryRegion> regions = new ArrayList<>();
    private MemoryRegion local;
    private RemoteMemory remote;

    protected OneSidedSubscriberTck(Access right) {
        this.right = right;
    }

    /** Subscribes the method under test on {@code client} to {@code source}. */
    protected abstract void subscribe(Endpoint client, Publisher<T> source);

    /** One element, between {@code local} and {@code window}. */
    protected abstract T element(RegisteredSlice local, RemoteMemory window);

    @Override
    protected void consume(Pair pair, Publisher<T> source) {
        MemoryRegion target = pair.server().memory().register(arena.allocate((long) WINDOW * SLOTS, 64), right);
        local = pair.client().memory().register(arena.allocate(WINDOW, 64));
        regions.add(target);
        regions.add(local);
        remote = pair.server().grant(target.slice(), right).remote();
        subscribe(pair.client(), source);
    }

    @Override
    protected void cleanUp() {
        regions.forEach(MemoryRegion::close);
        arena.close();
    }

    @Override
    public T createElement(int element) {
        return element(local.slice(), remote.slice((long) WINDOW * (element % SLOTS), WINDOW));
    }
}
