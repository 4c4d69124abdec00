package dev.rivulet.samples.webflux;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.interaction.InteractionOptions;
import dev.rivulet.core.progress.IdleStrategy;
import dev.rivulet.core.spi.TransportProvider;
import dev.rivulet.samples.webflux.front.BlockController;
import dev.rivulet.samples.webflux.front.BlockService;
import dev.rivulet.samples.webflux.front.EventsController;
import dev.rivulet.samples.webflux.front.LoadGenerator;
import dev.rivulet.samples.webflux.front.StatsController;
import dev.rivulet.samples.webflux.front.StorageClient;
import dev.rivulet.samples.webflux.storage.BlockStore;
import dev.rivulet.samples.webflux.storage.StorageNode;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * The Rivulet beans of the sample, written so they could move to a starter: the transport (closed gracefully with the
 * context), its meters on Actuator's registry, the storage node and the HTTP front according to
 * {@code rivulet.role}, and their health indicators.
 */
@Configuration(proxyBeanMethods = false)
public class RivuletConfiguration {

    /**
     * The transport for {@code rivulet.address}: the provider the address names, with the queue depths and idle
     * strategy of the properties. Every completed Rivulet operation whose subscriber carried an observation (an HTTP
     * request's, through Reactor's {@code Context}) is recorded on it as an event, so a trace shows the transport's
     * operations inside the HTTP call.
     */
    @Bean(destroyMethod = "")
    public Transport rivuletTransport(RivuletProperties p, RivuletAddress address) {
        TransportProvider provider = Transports.forAddress(address.listen()).orElseThrow();
        TransportConfig config = TransportConfig.defaults()
                .name(!p.transportName().isBlank() ? p.transportName() : "webflux-" + p.role())
                .sendQueueDepth(p.sendQueueDepth())
                .receiveQueueDepth(p.receiveQueueDepth())
                .idleStrategy(p.idleStrategy().equals("spin") ? IdleStrategy::busySpin : IdleStrategy::defaultStrategy)
                .observer((op, bytes, nanos, error, ctx) -> {
                    Observation parent = ctx.getOrDefault(ObservationThreadLocalAccessor.KEY, null);
                    if (parent != null) {
                        parent.event(Observation.Event.of("rivulet." + op.name().toLowerCase(java.util.Locale.ROOT)));
                    }
                })
                .options(provider.optionsFor(address.listen()));
        return Transports.open(provider.name(), config);
    }

    /** Where the storage node listens, resolved once: the property, or the best transport this machine has. */
    @Bean
    public RivuletAddress rivuletAddress(RivuletProperties p) {
        return RivuletAddress.resolve(p);
    }

    /** Closes the transport last, letting the operations still in flight finish. */
    @Bean
    public SmartLifecycle rivuletTransportLifecycle(Transport transport) {
        return new SmartLifecycle() {
            private volatile boolean running;

            @Override
            public void start() {
                running = true;
            }

            @Override
            public void stop() {
                running = false;
                transport.disposeGracefully(Duration.ofSeconds(10)).block(Duration.ofSeconds(20));
            }

            @Override
            public boolean isRunning() {
                return running;
            }

            @Override
            public int getPhase() {
                return -100;
            }
        };
    }

    /** The transport's {@code rivulet.*} meters on Actuator's registry (and so in {@code /actuator/prometheus}). */
    @Bean
    public MeterBinder rivuletMeters(Transport transport) {
        return transport.metrics();
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnExpression("'${rivulet.role:both}' == 'storage' or '${rivulet.role:both}' == 'both'")
    static class StorageRole {

        @Bean(destroyMethod = "close")
        BlockStore blockStore(Transport transport, RivuletProperties p) {
            return new BlockStore(transport, p.storage().capacity().toBytes(), p.storage().maxBlockSize().toBytes());
        }

        /** Its storage requests observed as {@code rivulet.requests}, continuing the front's traces. */
        @Bean
        StorageNode storageNode(Transport transport, RivuletAddress address, BlockStore store, RivuletProperties p,
                                ObservationRegistry observations) {
            return new StorageNode(transport, address.listen(), store, p.storage().eventsPerSecond(),
                    InteractionOptions.defaults().observations(observations));
        }

        @Bean
        dev.rivulet.samples.webflux.storage.StorageHealthIndicator storageHealthIndicator(StorageNode node) {
            return new dev.rivulet.samples.webflux.storage.StorageHealthIndicator(node);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnExpression("'${rivulet.role:both}' == 'front' or '${rivulet.role:both}' == 'both'")
    static class FrontRole {

        /**
         * In a process that runs both roles, the front connects to this process's storage node, once it listens.
         * Each storage request is observed ({@code rivulet.requests}), child of the block operation it serves.
         */
        @Bean
        StorageClient storageClient(Transport transport, RivuletAddress address, ObjectProvider<StorageNode> node,
                                    RivuletProperties p, ObservationRegistry observations) {
            Supplier<String> target = () -> {
                StorageNode local = node.getIfAvailable();
                return local != null ? local.address() : address.connect();
            };
            return new StorageClient(transport, target, p.front().requestTimeout(), p.front().reconnectMinBackoff(),
                    p.front().reconnectMaxBackoff(), InteractionOptions.defaults().observations(observations));
        }

        @Bean
        BlockService blockService(StorageClient storage, RivuletProperties p, ObservationRegistry observations,
                                  MeterRegistry meters) {
            return new BlockService(storage, (int) p.front().chunkSize().toBytes(), p.front().chunksInFlight(),
                    p.front().maxBlockSize().toBytes(), observations, meters);
        }

        @Bean
        BlockController blockController(BlockService blocks) {
            return new BlockController(blocks);
        }

        @Bean
        EventsController eventsController(StorageClient storage) {
            return new EventsController(storage);
        }

        @Bean
        StatsController statsController(MeterRegistry meters, StorageClient storage, Transport transport) {
            return new StatsController(meters, storage, transport.id());
        }

        @Bean
        dev.rivulet.samples.webflux.front.StorageHealthIndicator frontHealthIndicator(StorageClient storage) {
            return new dev.rivulet.samples.webflux.front.StorageHealthIndicator(storage);
        }

        @Bean
        @ConditionalOnProperty(name = "rivulet.load.enabled", havingValue = "true")
        LoadGenerator loadGenerator(BlockService blocks, RivuletProperties p) {
            return new LoadGenerator(blocks, (int) p.load().blockSize().toBytes(), p.load().interval());
        }
    }
}
