package dev.rivulet.rdma.verbs;

import dev.rivulet.core.Capabilities;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.engine.AbstractTransport;
import dev.rivulet.core.engine.EndpointEngine;
import dev.rivulet.core.error.ConnectionRefusedException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.loop.ProgressLoop;
import dev.rivulet.rdma.VerbsOptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static dev.rivulet.rdma.verbs.sys.VerbsConstants.IBV_ATOMIC_HCA;

/**
 * The verbs transport's data path, {@link VerbsWire} and everything under it, over the software device of
 * {@link FakeVerbs}: what a verbs transport does once its queue pairs are connected, with connection set-up replaced
 * by an in-JVM registry ({@code fakeverbs://name}). The device, rdma_cm and the bootstrap connection are what it leaves
 * out; everything between the engine and the ops table is production code.
 */
final class FakeVerbsTransport extends AbstractTransport {

    private static final Map<String, FakeListener> LISTENERS = new ConcurrentHashMap<>();

    private final MemorySegment context = FakeVerbs.context();
    private final int messageSize;
    private final int maxInline;
    private final int maxPoll;
    private final int signalInterval;
    private final Capabilities caps;

    FakeVerbsTransport(TransportConfig config) {
        super("verbs/fake0", config, (segment, access, key) -> FakeVerbs.register(segment, access),
                VerbsOptions.ALL);
        VerbsTransport.checkDepths(config);
        this.messageSize = config.get(VerbsOptions.MESSAGE_SIZE);
        this.maxInline = config.get(VerbsOptions.MAX_INLINE);
        this.maxPoll = config.get(VerbsOptions.MAX_POLL);
        this.signalInterval = config.get(VerbsOptions.SIGNAL_INTERVAL);
        this.caps = VerbsTransport.capabilities("fake0", 16, IBV_ATOMIC_HCA, 1L << 31, config, messageSize,
                maxInline);
    }

    @Override
    public Capabilities capabilities() {
        return caps;
    }

    private QueuePair.Sizes sizes() {
        return new QueuePair.Sizes(config.sendQueueDepth() + VerbsWire.EXTRA_SEND_SLOTS,
                config.receiveQueueDepth() + VerbsWire.CONTROL_SLOTS, maxInline, 0);
    }

    private VerbsWire wire(QueuePair qp, ProgressLoop loop, String remote) {
        return new VerbsWire(qp, memory, caps, remote, loop, messageSize, maxInline, maxPoll, signalInterval, true,
                config.liveness());
    }

    @Override
    public Mono<Endpoint> connect(String address) {
        return Mono.<Endpoint>fromCallable(() -> {
            checkOpen();
            FakeListener l = LISTENERS.get(address);
            if (l == null || l.isDisposed()) {
                throw new ConnectionRefusedException("nobody listens at " + address);
            }
            FakeVerbsTransport server = l.transport;
            QueuePair[] qps = FakeVerbs.connectedPair(context, sizes(), server.context, server.sizes());
            ProgressLoop clientLoop = progress.nextLoop();
            ProgressLoop serverLoop = server.progress.nextLoop();
            VerbsWire client = wire(qps[0], clientLoop, address);
            VerbsWire accepted = server.wire(qps[1], serverLoop, "fakeverbs://client-of-" + address);
            client.postInitialReceives();
            accepted.postInitialReceives();
            EndpointEngine s = server.newEndpoint(accepted, serverLoop);
            if (!l.accepted.tryEmitNext(s).isSuccess()) {
                s.dispose();
            }
            return newEndpoint(client, clientLoop);
        }).subscribeOn(Schedulers.boundedElastic());
    }

    @Override
    public Mono<Listener> bind(String address) {
        return Mono.fromCallable(() -> {
            checkOpen();
            FakeListener l = new FakeListener(this, address);
            if (LISTENERS.putIfAbsent(address, l) != null) {
                throw new InvalidRequestException(address + " is taken");
            }
            track(l);
            return l;
        });
    }

    private static final class FakeListener implements Listener {
        final FakeVerbsTransport transport;
        final String address;
        final Sinks.Many<Endpoint> accepted = Sinks.many().unicast().onBackpressureBuffer();
        final Sinks.Empty<Void> disposed = Sinks.empty();
        volatile boolean isDisposed;

        FakeListener(FakeVerbsTransport transport, String address) {
            this.transport = transport;
            this.address = address;
        }

        @Override
        public String address() {
            return address;
        }

        @Override
        public Flux<Endpoint> accepted() {
            return accepted.asFlux();
        }

        @Override
        public Mono<Void> onDispose() {
            return disposed.asMono();
        }

        @Override
        public void dispose() {
            if (!isDisposed) {
                isDisposed = true;
                LISTENERS.remove(address, this);
                accepted.tryEmitComplete();
                disposed.tryEmitEmpty();
            }
        }

        @Override
        public boolean isDisposed() {
            return isDisposed;
        }
    }
}
