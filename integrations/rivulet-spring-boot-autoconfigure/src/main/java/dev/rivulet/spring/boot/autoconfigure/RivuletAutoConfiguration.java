package dev.rivulet.spring.boot.autoconfigure;

import java.util.Objects;
import java.util.function.BiFunction;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.TransportResources;
import dev.rivulet.core.interaction.InteractionOptions;
import dev.rivulet.core.security.SecuritySettings;
import dev.rivulet.spring.codec.RivuletStrategies;
import dev.rivulet.spring.messaging.RivuletMessageHandler;
import dev.rivulet.spring.requester.RivuletRequester;

/**
 * Rivulet in a Spring Boot application: the transport resources every client and server of the application runs on
 * (configured by {@code rivulet.transport.*}, their meters on the application's {@code MeterRegistry}, closed after
 * the servers have drained), {@link RivuletClient} and {@link RivuletServer} builders on them, codecs
 * ({@link RivuletStrategies}) and a {@link RivuletRequester.Builder} for the application's requests, and, when
 * {@code rivulet.server.address} is set, a server answering with the {@code @MessageMapping} methods of the
 * application's controllers. Requests both ways are observed through the application's {@code ObservationRegistry}.
 * Each bean backs off when the application defines one of its type.
 */
@AutoConfiguration(after = SslAutoConfiguration.class, afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration"})
@ConditionalOnClass({TransportResources.class, RivuletMessageHandler.class})
@EnableConfigurationProperties(RivuletProperties.class)
public class RivuletAutoConfiguration {

    /**
     * The application's transport resources, secured by the SSL bundle {@code rivulet.transport.ssl.bundle} names.
     * Fails start-up, through {@link MissingTransportFailureAnalyzer}, when a transport of
     * {@code rivulet.transport.required} is missing, and when the bundle is.
     */
    @Bean(destroyMethod = "dispose")
    @ConditionalOnMissingBean
    public TransportResources rivuletTransportResources(RivuletProperties properties,
                                                        ObjectProvider<MeterRegistry> meters,
                                                        ObjectProvider<SslBundles> sslBundles,
                                                        ObjectProvider<TransportConfigCustomizer> customizers) {
        RivuletProperties.Transport transport = properties.getTransport();
        transport.getRequired().forEach(name -> MissingTransportException.requireNamed(name,
                "rivulet.transport.required"));
        SecuritySettings security = TransportTls.security(transport.getSsl(), sslBundles);
        return TransportResources.create(transport.getName(), defaults -> {
            TransportConfig config = transport.applyTo(defaults);
            if (security != null) {
                config = config.security(security);
            }
            MeterRegistry registry = meters.getIfUnique();
            if (registry != null) {
                config = config.meterRegistry(registry);
            }
            return customized(config, customizers, TransportConfigCustomizer::customize);
        });
    }

    @Bean
    @ConditionalOnMissingBean
    public TransportResourcesLifecycle rivuletTransportResourcesLifecycle(TransportResources resources,
                                                                          Environment environment) {
        return new TransportResourcesLifecycle(resources, ShutdownSettings.of(environment).timeout());
    }

    /** The options of the interaction sessions the server opens: observed when the application observes. */
    @Bean
    @ConditionalOnMissingBean
    public InteractionOptions rivuletInteractionOptions(ObjectProvider<ObservationRegistry> observations) {
        ObservationRegistry registry = observations.getIfUnique();
        return registry != null ? InteractionOptions.defaults().observations(registry) : InteractionOptions.defaults();
    }

    /** A client builder on the application's resources; give it a remote address and connect. */
    @Bean
    @ConditionalOnMissingBean
    public RivuletClient rivuletClient(TransportResources resources,
                                       ObjectProvider<RivuletClientCustomizer> customizers) {
        return customized(RivuletClient.create().runOn(resources), customizers, RivuletClientCustomizer::customize);
    }

    /** A server builder on the application's resources; the one serving the controllers starts from it. */
    @Bean
    @ConditionalOnMissingBean
    public RivuletServer rivuletServer(TransportResources resources,
                                       ObjectProvider<RivuletServerCustomizer> customizers) {
        return customized(RivuletServer.create().runOn(resources), customizers, RivuletServerCustomizer::customize);
    }

    /**
     * The codecs of the application's requesters and of the server of its controllers: with buffers from the server's
     * transport when {@code rivulet.server.address} is set (failing start-up when that transport is missing),
     * otherwise without memory, each requester binding them to its connection's.
     */
    @Bean
    @ConditionalOnMissingBean
    public RivuletStrategies rivuletStrategies(TransportResources resources, RivuletProperties properties) {
        String address = properties.getServer().getAddress();
        return address == null ? RivuletStrategies.builder().build()
                : RivuletStrategies.create(MessageMappingServerConfiguration.serverTransport(resources, address)
                        .memory());
    }

    /**
     * Connects the application's requesters: {@code builder.connectNow("uring://orders:7000")} gives a
     * {@link RivuletRequester} on a new connection of the {@link RivuletClient} bean, observed as the application's
     * interactions are, encoding with the strategies bound to the connection's memory.
     */
    @Bean
    @ConditionalOnMissingBean
    public RivuletRequester.Builder rivuletRequesterBuilder(RivuletClient client, RivuletStrategies strategies,
                                                            InteractionOptions options) {
        return RivuletRequester.builder(client, strategies).options(options);
    }

    /** {@code value} changed by every customizer, in their order, each seeing the one before's result. */
    private static <T, C> T customized(T value, ObjectProvider<C> customizers, BiFunction<C, T, T> customize) {
        T result = value;
        for (C customizer : customizers.orderedStream().toList()) {
            result = Objects.requireNonNull(customize.apply(customizer, result), "a customizer returned null");
        }
        return result;
    }

    /** The server of the application's {@code @MessageMapping} methods, when it has an address. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty("rivulet.server.address")
    static class MessageMappingServerConfiguration {

        /**
         * The transport of the server's address on the application's resources (opened now); fails start-up when
         * the address's transport is missing.
         */
        static Transport serverTransport(TransportResources resources, String address) {
            MissingTransportException.requireForAddress(address, "rivulet.server.address");
            return resources.forAddress(address);
        }

        /** The handler of the controllers, encoding answers into the memory of the server's transport. */
        @Bean
        @ConditionalOnMissingBean
        RivuletMessageHandler rivuletMessageHandler(RivuletStrategies strategies, TransportResources resources,
                                                    RivuletProperties properties) {
            String address = Objects.requireNonNull(properties.getServer().getAddress());
            return new RivuletMessageHandler(strategies.withMemory(serverTransport(resources, address).memory()));
        }

        @Bean
        @ConditionalOnMissingBean
        RivuletServerLifecycle rivuletServerLifecycle(RivuletServer server, RivuletMessageHandler handler,
                                                      InteractionOptions options, RivuletProperties properties,
                                                      Environment environment) {
            String address = Objects.requireNonNull(properties.getServer().getAddress());
            return new RivuletServerLifecycle(server.bindAddress(address), handler.responder(), options,
                    ShutdownSettings.of(environment));
        }
    }
}
