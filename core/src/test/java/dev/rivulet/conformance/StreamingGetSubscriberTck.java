package dev.rivulet.conformance;

import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.core.memory.RemoteRead;
import org.reactivestreams.Publisher;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;

/**
 * TCK subscriber rules on {@code Endpoint.get(Publisher)}'s subscriber: every element reads 16 bytes of a window the
 * server registered.
 */
public abstract class StreamingGetSubscriberTck extends EndpointSubscriberTck<RemoteRead> {

    private static final int WINDOW = 16;
    private static final int SLOTS = 64;

    private final Arena arena = Arena.ofShared();
    private final List<MemoryRegion> regions = new ArrayList<>();
    private MemoryRegion local;
    private RemoteMemory remote;

    @Override
    protected void consume(Pair pair, Publisher<RemoteRead> source) {
        MemoryRegion target = pair.server().memory().register(arena.allocate((long) WINDOW * SLOTS, 64),
                Access.REMOTE_READ);
        local = pair.client().memory().register(arena.allocate(WINDOW, 64));
        regions.add(target);
        regions.add(local);
        remote = pair.server().grant(target.slice(), Access.REMOTE_READ).remote();
        pair.client().get(source).subscribe(null, e -> { });
    }

    @Override
    protected void cleanUp() {
        regions.forEach(MemoryRegion::close);
        arena.close();
    }

    @Override
    public RemoteRead createElement(int element) {
        return new RemoteRead(remote.slice((long) WINDOW * (element % SLOTS), WINDOW), local.slice());
    }
}
