package dev.rivulet.core.engine;

import dev.rivulet.core.Capabilities;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.memory.NativeRegistration;
import dev.rivulet.core.progress.IdleStrategy;
import reactor.core.publisher.Mono;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Set;

/**
 * A transport whose endpoints run over wires a test scripts, so that the real engine, on a real (busy-spinning)
 * polling thread, meets whatever answers the test chooses. It neither connects nor listens: {@link #open} makes an
 * endpoint over a given wire.
 */
final class ScriptedTransport extends AbstractTransport {

    private final Capabilities caps;

    ScriptedTransport(Capabilities caps) {
        this.caps = caps;
        super(caps.transport(), TransportConfig.defaults().progressThreads(1).sendQueueDepth(caps.sendQueueDepth())
                .receiveQueueDepth(caps.receiveQueueDepth()).idleStrategy(IdleStrategy::busySpin),
                ScriptedTransport::register, List.of());
    }

    private static NativeRegistration register(MemorySegment segment, Set<?> access, long key) {
        return new NativeRegistration(key, segment.address(), MemorySegment.NULL, null, null);
    }

    EndpointEngine open(Wire wire) {
        return newEndpoint(wire);
    }

    @Override
    public Capabilities capabilities() {
        return caps;
    }

    @Override
    public Mono<Endpoint> connect(String address) {
        return Mono.error(new UnsupportedOperationException());
    }

    @Override
    public Mono<Listener> bind(String address) {
        return Mono.error(new UnsupportedOperationException());
    }
}
