package dev.rivulet.conformance;

import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.core.memory.RemoteWrite;
import org.reactivestreams.Publisher;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;

/**
 * TCK subscriber rules on {@code Endpoint.put(Publisher)}'s subscriber: every element writes 16 bytes into a
 * window the server registered.
 */
public abstract class StreamingPutSubscriberTck extends EndpointSubscriberTck<RemoteWrite> {

    private static final int WINDOW = 16;
    private static final int SLOTS = 64;

    private final Arena arena = Arena.ofShared();
    private final List<MemoryRegion> regions = new ArrayList<>();
    private MemoryRegion local;
    private RemoteMemory remote;

    @Override
    protected void consume(Pair pair, Publisher<RemoteWrite> source) {
        MemoryRegion target = pair.server().memory().register(arena.allocate((long) WINDOW * SLOTS, 64),
                Access.REMOTE_WRITE);
        local = pair.client().memory().register(arena.allocate(WINDOW, 64));
        regions.add(target);
        regions.add(local);
        remote = pair.server().grant(target.slice(), Access.REMOTE_WRITE).remote();
        pair.client().put(source).subscribe(null, e -> { });
    }

    @Override
    protected void cleanUp() {
        regions.forEach(MemoryRegion::close);
        arena.close();
    }

    @Override
    public RemoteWrite createElement(int element) {
        return new RemoteWrite(local.slice(), remote.slice((long) WINDOW * (element % SLOTS), WINDOW));
    }
}
