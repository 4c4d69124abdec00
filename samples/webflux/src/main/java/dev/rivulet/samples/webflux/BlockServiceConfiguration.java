package dev.rivulet.samples.webflux;

import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportResources;
import dev.rivulet.core.interaction.InteractionOptions;
import dev.rivulet.core.progress.IdleStrategy;
import dev.rivulet.samples.webflux.front.BlockController;
import dev.rivulet.samples.webflux.front.BlockService;
import dev.rivulet.samples.webflux.front.EventsController;
import dev.rivulet.samples.webflux.front.LoadGenerator;
import dev.rivulet.samples.webflux.front.StatsController;
import dev.rivulet.samples.webflux.front.StorageClient;
import dev.rivulet.samples.webflux.storage.BlockStore;
import dev.rivulet.samples.webflux.storage.StorageNode;
import dev.rivulet.spring.boot.autoconfigure.TransportConfigCustomizer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.util.Locale;
import java.util.function.Supplier;

/**
 * The block service's beans on top of what the Rivulet starter configures: the starter brings the transport resources
 * (opened with {@code rivulet.transport.*}, their meters on Actuator's registry, closed after everything below has
 * stopped), the {@link RivuletServer} and {@link RivuletClient} builders on them and observed
 * {@link InteractionOptions}; this class adds the storage node and the HTTP front according to {@code blocks.role},
 * and their health indicators.
 */
@Configuration(proxyBeanMethods = false)
public class BlockServiceConfiguration {

    /**
     * What the starter has no property for: the idle strategy of {@code blocks.idle-strategy}, and an observer that
     * records every completed Rivulet operation whose subscriber carried an observation (an HTTP request's, through
     * Reactor's {@code Context}) as an event on it, so a trace shows the transport's operations inside the HTTP call.
     */
    @Bean
    public TransportConfigCustomizer blockServiceTransportConfig(BlockServiceProperties p) {
        return config -> config
                .idleStrategy(p.idleStrategy().equals("spin") ? IdleStrategy::busySpin : IdleStrategy::defaultStrategy)
                .observer((op, bytes, nanos, error, ctx) -> {
                    Observation parent = ctx.getOrDefault(ObservationThreadLocalAccessor.KEY, null);
                    if (parent != null) {
                        parent.event(Observation.Event.of("rivulet." + op.name().toLowerCase(Locale.ROOT)));
                    }
                });
    }

    /** Where the storage node listens, resolved once: the property, or the best transport this machine has. */
    @Bean
    public StorageAddress storageAddress(BlockServiceProperties p) {
        return StorageAddress.resolve(p);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnExpression("'${blocks.role:both}' == 'storage' or '${blocks.role:both}' == 'both'")
    static class StorageRole {

        /** The registered memory of the transport the storage node listens on, where one-sided puts and gets land. */
        @Bean(destroyMethod = "close")
        BlockStore blockStore(TransportResources resources, StorageAddress address, BlockServiceProperties p) {
            Transport transport = resources.forAddress(address.listen());
            return new BlockStore(transport, p.storage().capacity().toBytes(), p.storage().maxBlockSize().toBytes());
        }

        /** Its storage requests observed as {@code rivulet.requests}, continuing the front's traces. */
        @Bean
        StorageNode storageNode(RivuletServer server, StorageAddress address, BlockStore store,
                                BlockServiceProperties p, InteractionOptions options) {
            return new StorageNode(server, address.listen(), store, p.storage().eventsPerSecond(), options);
        }

        @Bean
        dev.rivulet.samples.webflux.storage.StorageHealthIndicator storageHealthIndicator(StorageNode node) {
            return new dev.rivulet.samples.webflux.storage.StorageHealthIndicator(node);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnExpression("'${blocks.role:both}' == 'front' or '${blocks.role:both}' == 'both'")
    static class FrontRole {

        /**
         * In a process that runs both roles, the front connects to this process's storage node, once it listens.
         * Each storage request is observed ({@code rivulet.requests}), child of the block operation it serves.
         */
        @Bean
        StorageClient storageClient(RivuletClient client, StorageAddress address, ObjectProvider<StorageNode> node,
                                    BlockServiceProperties p, InteractionOptions options) {
            Supplier<String> target = () -> {
                StorageNode local = node.getIfAvailable();
                return local != null ? local.address() : address.connect();
            };
            return new StorageClient(client, target, p.front().requestTimeout(), p.front().reconnectMinBackoff(),
                    p.front().reconnectMaxBackoff(), options);
        }

        @Bean
        BlockService blockService(StorageClient storage, BlockServiceProperties p, ObservationRegistry observations,
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

        /** The page's transport figures are those of the transport the front reaches the storage node on. */
        @Bean
        StatsController statsController(MeterRegistry meters, StorageClient storage, TransportResources resources,
                                        StorageAddress address) {
            return new StatsController(meters, storage, resources.forAddress(address.connect()).id());
        }

        @Bean
        dev.rivulet.samples.webflux.front.StorageHealthIndicator frontHealthIndicator(StorageClient storage) {
            return new dev.rivulet.samples.webflux.front.StorageHealthIndicator(storage);
        }

        @Bean
        @ConditionalOnProperty(name = "blocks.load.enabled", havingValue = "true")
        LoadGenerator loadGenerator(BlockService blocks, BlockServiceProperties p) {
            return new LoadGenerator(blocks, (int) p.load().blockSize().toBytes(), p.load().interval());
        }
    }
}
