package dev.rivulet.core.local;

import dev.rivulet.core.Capabilities;
import dev.rivulet.core.Completion;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Operation;
import dev.rivulet.core.Ordering;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.engine.AbstractTransport;
import dev.rivulet.core.engine.EndpointEngine;
import dev.rivulet.core.error.ConnectionRefusedException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.loop.ErrorPathClasses;
import dev.rivulet.core.memory.NativeRegistration;
import reactor.core.publisher.Mono;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

/**
 * The in-JVM transport: endpoints in one JVM that copy between registered segments, with the same credits, queue
 * depths, NO_RESOURCE parking, RMA, atomics and flush semantics as a hardware transport. The embedded default, and
 * what users' own unit tests can run on.
 *
 * <p>Options: {@link LocalOptions}.
 */
final class LocalTransport extends AbstractTransport {

    static final String NAME = "local";

    private final Capabilities caps;
    private final int nativeDepth;

    LocalTransport(TransportConfig config) {
        super(NAME, config, LocalTransport::register, LocalOptions.ALL);
        ErrorPathClasses.loadNests(LocalWire.class, LocalFabric.class); // see ErrorPathClasses
        this.nativeDepth = config.get(LocalOptions.NATIVE_QUEUE_DEPTH);
        long maxMessage = config.get(LocalOptions.MAX_MESSAGE_SIZE);
        long maxRma = config.has(LocalOptions.MAX_RMA_SIZE) ? config.get(LocalOptions.MAX_RMA_SIZE) : maxMessage;
        this.caps = new Capabilities(NAME, EnumSet.allOf(Operation.class), maxMessage, 0, 1,
                EnumSet.allOf(Ordering.class), config.sendQueueDepth(), config.receiveQueueDepth(), 10e9,
                // completions are reported only after the copy into the peer's buffer or memory
                Duration.ofNanos(1_000), Completion.REMOTE, Completion.REMOTE, Completion.REMOTE, maxRma, true, 64,
                true, false);
    }

    /**
     * Local registration: nothing to pin; the key is the domain's random proposal, and a handle names offsets, never
     * where this JVM's memory lies.
     */
    private static NativeRegistration register(MemorySegment segment, Set<?> access, long proposedKey) {
        return NativeRegistration.checkedInSoftware(segment, proposedKey, null, null);
    }

    @Override
    public Capabilities capabilities() {
        return caps;
    }

    @Override
    public Mono<Endpoint> connect(String address) {
        return Mono.defer(() -> {
            checkOpen();
            String name = LocalFabric.nameOf(address);
            LocalListener listener = LocalFabric.lookup(name);
            if (listener == null || listener.isDisposed()) {
                return Mono.error(new ConnectionRefusedException("nobody listens at " + address));
            }
            LocalTransport server = listener.transport();
            LocalWire mine = new LocalWire(progress.nextLoop(), memory, caps, nativeDepth, address);
            LocalWire theirs = new LocalWire(server.progress.nextLoop(), server.memory, server.caps,
                    server.nativeDepth, "local://client@" + Integer.toHexString(System.identityHashCode(mine)));
            LocalWire.connect(mine, theirs);
            EndpointEngine client = newEndpoint(mine, mine.loop());
            EndpointEngine accepted = server.newEndpoint(theirs, theirs.loop());
            if (!listener.accept(accepted)) {
                client.closeFromTransport(new ConnectionRefusedException("listener at " + address + " went away"));
                accepted.closeFromTransport(new ConnectionRefusedException("listener went away"));
                return Mono.error(new ConnectionRefusedException("listener at " + address + " went away"));
            }
            return Mono.just(client);
        });
    }

    @Override
    public Mono<Listener> bind(String address) {
        return Mono.fromCallable(() -> {
            checkOpen();
            String name = LocalFabric.nameOf(address);
            LocalListener l = new LocalListener(this, name);
            if (!LocalFabric.bind(name, l)) {
                throw new InvalidRequestException("local://" + name + " is already bound");
            }
            track(l);
            return l;
        });
    }
}
