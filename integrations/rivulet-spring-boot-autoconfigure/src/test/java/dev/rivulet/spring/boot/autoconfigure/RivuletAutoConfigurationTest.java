package dev.rivulet.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.condition.ConditionEvaluationReport;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.annotation.Order;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.messaging.handler.annotation.MessageMapping;
import org.springframework.stereotype.Controller;


import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.TransportResources;
import dev.rivulet.core.interaction.InteractionOptions;
import dev.rivulet.core.progress.IdleStrategy;
import dev.rivulet.spring.boot.autoconfigure.health.RivuletHealthAutoConfiguration;
import dev.rivulet.spring.boot.autoconfigure.health.RivuletServerHealthIndicator;
import dev.rivulet.spring.codec.RivuletStrategies;
import dev.rivulet.spring.messaging.RivuletMessageHandler;
import dev.rivulet.spring.requester.RivuletRequester;

/** Every condition and property of the auto-configuration, each both ways, on the in-JVM local transport. */
class RivuletAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, RivuletAutoConfiguration.class,
                    RivuletHealthAutoConfiguration.class));

    @Test
    void defaultsGiveResourcesBuildersRequesterSupportAndNoServer() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(TransportResources.class)
                    .hasSingleBean(TransportResourcesLifecycle.class)
                    .hasSingleBean(RivuletClient.class)
                    .hasSingleBean(RivuletServer.class)
                    .hasSingleBean(InteractionOptions.class)
                    .hasSingleBean(RivuletStrategies.class)
                    .hasSingleBean(RivuletRequester.Builder.class)
                    .doesNotHaveBean(RivuletServerLifecycle.class)
                    .doesNotHaveBean(RivuletMessageHandler.class)
                    .doesNotHaveBean("rivuletServerHealthIndicator");
            // a client-only application opens no transport before it connects: its codecs wait for a connection
            assertThat(context.getBean(RivuletStrategies.class).hasMemory()).isFalse();
            assertThat(context.getBean(TransportResources.class).isInUse()).isFalse();
            TransportConfig config = context.getBean(TransportResources.class).config();
            TransportConfig defaults = TransportConfig.defaults();
            assertThat(context.getBean(TransportResources.class).name()).isEqualTo("rivulet");
            assertThat(config.progressThreads()).isEqualTo(defaults.progressThreads());
            assertThat(config.sendQueueDepth()).isEqualTo(defaults.sendQueueDepth());
            assertThat(config.receiveQueueDepth()).isEqualTo(defaults.receiveQueueDepth());
            assertThat(config.connectTimeout()).isEqualTo(defaults.connectTimeout());
            assertThat(config.receiveLinger()).isEqualTo(defaults.receiveLinger());
            assertThat(config.options()).isEmpty();
            assertThat(config.meterRegistry()).isNull();
            assertThat(config.security().usesTls()).isFalse();
        });
    }

    @Test
    void tlsComesFromTheNamedSslBundle() {
        runner.withPropertyValues("spring.ssl.bundle.jks.rivulet.keystore.location=classpath:test-ssl.p12",
                "spring.ssl.bundle.jks.rivulet.keystore.password=secret-test",
                "spring.ssl.bundle.jks.rivulet.keystore.type=PKCS12",
                "spring.ssl.bundle.jks.rivulet.truststore.location=classpath:test-ssl.p12",
                "spring.ssl.bundle.jks.rivulet.truststore.password=secret-test",
                "spring.ssl.bundle.jks.rivulet.truststore.type=PKCS12",
                "rivulet.transport.ssl.bundle=rivulet").run(context -> {
                    var security = context.getBean(TransportResources.class).config().security();
                    assertThat(security.usesTls()).isTrue();
                    assertThat(security.tlsClientAuth()).isTrue();
                    assertThat(security.verifyHostname()).isTrue();
                });
        runner.withPropertyValues("spring.ssl.bundle.jks.rivulet.keystore.location=classpath:test-ssl.p12",
                "spring.ssl.bundle.jks.rivulet.keystore.password=secret-test",
                "spring.ssl.bundle.jks.rivulet.keystore.type=PKCS12",
                "rivulet.transport.ssl.bundle=rivulet", "rivulet.transport.ssl.client-auth=false",
                "rivulet.transport.ssl.verify-hostname=false").run(context -> {
                    var security = context.getBean(TransportResources.class).config().security();
                    assertThat(security.usesTls()).isTrue();
                    assertThat(security.tlsClientAuth()).isFalse();
                    assertThat(security.verifyHostname()).isFalse();
                });
    }

    @Test
    void aMissingSslBundleFailsStartUp() {
        runner.withPropertyValues("rivulet.transport.ssl.bundle=nowhere").run(context ->
                assertThat(context).hasFailed().getFailure().rootCause()
                        .isInstanceOf(NoSuchSslBundleException.class).hasMessageContaining("nowhere"));
    }

    @Test
    void transportPropertiesReachTheConfiguration() {
        runner.withPropertyValues("rivulet.transport.name=orders", "rivulet.transport.progress-threads=2",
                "rivulet.transport.send-queue-depth=64", "rivulet.transport.receive-queue-depth=32",
                "rivulet.transport.connect-timeout=3s", "rivulet.transport.receive-linger=250ms",
                "rivulet.transport.options.provider=tcp").run(context -> {
                    TransportResources resources = context.getBean(TransportResources.class);
                    TransportConfig config = resources.config();
                    assertThat(resources.name()).isEqualTo("orders");
                    assertThat(config.progressThreads()).isEqualTo(2);
                    assertThat(config.sendQueueDepth()).isEqualTo(64);
                    assertThat(config.receiveQueueDepth()).isEqualTo(32);
                    assertThat(config.connectTimeout()).isEqualTo(Duration.ofSeconds(3));
                    assertThat(config.receiveLinger()).isEqualTo(Duration.ofMillis(250));
                    assertThat(config.options()).isEqualTo(Map.of("provider", "tcp"));
                });
    }

    @Test
    void metersGoToTheApplicationsRegistry() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        runner.withBean(MeterRegistry.class, () -> registry).run(context ->
                assertThat(context.getBean(TransportResources.class).config().meterRegistry()).isSameAs(registry));
    }

    @Test
    void requestsAreObservedBothWaysOnlyWhereTheApplicationObserves() {
        runner.run(context -> assertThat(context.getBean(InteractionOptions.class))
                .isSameAs(InteractionOptions.defaults()));
        Queue<String> sides = new ConcurrentLinkedQueue<>();
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public void onStop(Observation.Context context) {
                sides.add(context.getLowCardinalityKeyValue("rivulet.side").getValue());
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }
        });
        runner.withPropertyValues("rivulet.server.address=local://observed-test")
                .withBean(ObservationRegistry.class, () -> registry)
                .withUserConfiguration(PingController.class)
                .run(context -> {
                    RivuletRequester requester = context.getBean(RivuletRequester.Builder.class)
                            .connectNow("local://observed-test");
                    try {
                        assertThat(requester.route("ping").data("hi").retrieveMono(String.class)
                                .block(Duration.ofSeconds(10))).isEqualTo("pong: hi");
                    } finally {
                        requester.requester().dispose();
                    }
                    assertThat(sides).containsExactlyInAnyOrder("requester", "responder");
                });
    }

    @Test
    void customizersApplyInOrderAfterTheProperties() {
        runner.withPropertyValues("rivulet.transport.send-queue-depth=64")
                .withUserConfiguration(Customizers.class)
                .run(context -> {
                    TransportConfig config = context.getBean(TransportResources.class).config();
                    // the second customizer saw the first one's change, which saw the property
                    assertThat(config.sendQueueDepth()).isEqualTo(64 * 2 + 1);
                    assertThat(context.getBean(RivuletClient.class)).isSameAs(Customizers.CLIENT);
                    assertThat(context.getBean(RivuletServer.class)).isSameAs(Customizers.SERVER);
                });
    }

    @Test
    void applicationBeansReplaceTheirs() {
        TransportResources own = TransportResources.create("own");
        RivuletClient client = RivuletClient.create();
        RivuletServer server = RivuletServer.create();
        InteractionOptions options = InteractionOptions.defaults().maxPayloadSize(1024);
        runner.withBean(TransportResources.class, () -> own)
                .withBean(RivuletClient.class, () -> client)
                .withBean(RivuletServer.class, () -> server)
                .withBean(InteractionOptions.class, () -> options)
                .run(context -> {
                    assertThat(context.getBean(TransportResources.class)).isSameAs(own);
                    assertThat(context.getBean(RivuletClient.class)).isSameAs(client);
                    assertThat(context.getBean(RivuletServer.class)).isSameAs(server);
                    assertThat(context.getBean(InteractionOptions.class)).isSameAs(options);
                });
        own.dispose();
    }

    @Test
    void applicationBeansReplaceTheServersToo() {
        TransportResources own = TransportResources.create("own-server");
        RivuletStrategies strategies = RivuletStrategies.create(own.forAddress("local://x").memory());
        RivuletMessageHandler handler = new RivuletMessageHandler(strategies);
        runner.withPropertyValues("rivulet.server.address=local://own-beans-test")
                .withBean(RivuletStrategies.class, () -> strategies)
                .withBean(RivuletMessageHandler.class, () -> handler)
                .withBean("rivuletServerHealthIndicator", HealthIndicator.class, () -> () -> null)
                .withBean("rivuletTransportsHealthContributor", HealthIndicator.class, () -> () -> null)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(RivuletStrategies.class)).isSameAs(strategies);
                    assertThat(context.getBean(RivuletMessageHandler.class)).isSameAs(handler);
                    assertThat(context).doesNotHaveBean(RivuletServerHealthIndicator.class)
                            .doesNotHaveBean(CompositeHealthContributor.class);
                });
        runner.withPropertyValues("rivulet.server.address=local://own-lifecycle-test")
                .withBean(RivuletServerLifecycle.class, () -> new RivuletServerLifecycle(
                        RivuletServer.create().runOn(own).bindAddress("local://own-lifecycle"),
                        handler.responder(), InteractionOptions.defaults(),
                        new ShutdownSettings(false, Duration.ofSeconds(1))))
                .withBean(TransportResourcesLifecycle.class, () -> new TransportResourcesLifecycle(own,
                        Duration.ofSeconds(1)))
                .run(context -> {
                    assertThat(context).hasSingleBean(RivuletServerLifecycle.class)
                            .hasSingleBean(TransportResourcesLifecycle.class);
                    assertThat(context.getBean(RivuletServerLifecycle.class).boundServer().address())
                            .isEqualTo("local://own-lifecycle");
                });
        own.dispose();
    }

    @Test
    void aClientOnlyApplicationRequestsThroughTheRequesterBuilder() {
        runner.withPropertyValues("rivulet.server.address=local://client-only-test")
                .withUserConfiguration(PingController.class)
                .run(server -> runner.run(client -> {
                    assertThat(client).doesNotHaveBean(RivuletServerLifecycle.class);
                    RivuletRequester.Builder requesters = client.getBean(RivuletRequester.Builder.class);
                    // snippet:begin boot-client
                    RivuletRequester requester = requesters.connectNow("local://client-only-test");
                    String answer = requester.route("ping").data("hi").retrieveMono(String.class).block();
                    // snippet:end
                    try {
                        assertThat(answer).isEqualTo("pong: hi");
                        // the codecs encode into the memory of the connection's transport, on the client's resources
                        assertThat(requester.strategies().dataBufferFactory().domain()).isSameAs(client
                                .getBean(TransportResources.class).forAddress("local://client-only-test").memory());
                    } finally {
                        requester.requester().dispose();
                    }
                }));
    }

    @Test
    void theRequesterBuilderUsesTheApplicationsStrategiesAndOptions() {
        RivuletStrategies codecs = RivuletStrategies.builder().defaultContentType(RivuletStrategies.CBOR).build();
        RivuletRequester.Builder own = RivuletRequester.builder(RivuletClient.create(), codecs);
        runner.withBean(RivuletStrategies.class, () -> codecs).run(context ->
                assertThat(context.getBean(RivuletStrategies.class)).isSameAs(codecs));
        runner.withBean(RivuletRequester.Builder.class, () -> own).run(context ->
                assertThat(context.getBean(RivuletRequester.Builder.class)).isSameAs(own));
    }

    @Controller
    static class PingController {

        @MessageMapping("ping")
        String ping(String text) {
            return "pong: " + text;
        }
    }

    @Test
    void aServerAddressServesTheControllersAndIsHealthy() {
        runner.withPropertyValues("rivulet.server.address=local://autoconfigure-test").run(context -> {
            assertThat(context).hasSingleBean(RivuletStrategies.class).hasSingleBean(RivuletMessageHandler.class);
            assertThat(context.getBean(RivuletStrategies.class).hasMemory()).as("the server's transport's").isTrue();
            RivuletServerLifecycle server = context.getBean(RivuletServerLifecycle.class);
            assertThat(server.isRunning()).isTrue();
            assertThat(server.boundServer().address()).isEqualTo("local://autoconfigure-test");
            assertThat(context.getBean(RivuletServerHealthIndicator.class).health().getStatus())
                    .isEqualTo(Status.UP);
            context.stop();
            assertThat(server.isRunning()).isFalse();
            assertThat(context.getBean(RivuletServerHealthIndicator.class).health().getStatus())
                    .isEqualTo(Status.DOWN);
        });
    }

    @Test
    void theServerDrainsBeforeTheResourcesClose() {
        runner.withPropertyValues("rivulet.server.address=local://phases-test").run(context -> {
            int server = context.getBean(RivuletServerLifecycle.class).getPhase();
            int resources = context.getBean(TransportResourcesLifecycle.class).getPhase();
            // higher phases stop first; Spring Boot's web server stops at DEFAULT_PHASE - 2048
            assertThat(server).isGreaterThan(SmartLifecycle.DEFAULT_PHASE - 2048);
            assertThat(resources).isLessThan(SmartLifecycle.DEFAULT_PHASE - 2048);
            TransportResources transports = context.getBean(TransportResources.class);
            context.stop();
            assertThat(transports.isDisposed()).isTrue();
        });
    }

    @Test
    void shutdownFollowsServerShutdownAndThePhaseTimeout() {
        runner.run(context -> assertThat(ShutdownSettings.of(context.getEnvironment()))
                .isEqualTo(new ShutdownSettings(true, Duration.ofSeconds(30))));
        runner.withPropertyValues("server.shutdown=immediate", "spring.lifecycle.timeout-per-shutdown-phase=5s")
                .run(context -> assertThat(ShutdownSettings.of(context.getEnvironment()))
                        .isEqualTo(new ShutdownSettings(false, Duration.ofSeconds(5))));
    }

    @Test
    void aRequiredTransportThatIsMissingFailsStartUpSayingWhy() {
        runner.withPropertyValues("rivulet.transport.required=local,warp-drive").run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            assertThat(failure).rootCause().isInstanceOf(MissingTransportException.class);
            FailureAnalysis analysis = new MissingTransportFailureAnalyzer().analyze(failure);
            assertThat(analysis.getDescription()).contains("'warp-drive'", "rivulet.transport.required",
                    "no provider for it is on the class path", "local (local://, available)");
            assertThat(analysis.getAction()).contains("rivulet-reactor-rio");
        });
        // Spring Boot finds the analyzer, and so prints that report when start-up fails (Boot's own analyzers,
        // which take constructor arguments, cannot be made here: they are left out)
        assertThat(SpringFactoriesLoader.forDefaultResourceLocation().load(FailureAnalyzer.class,
                SpringFactoriesLoader.FailureHandler.handleMessage((message, failure) -> { })))
                .hasAtLeastOneElementOfType(MissingTransportFailureAnalyzer.class);
        runner.withPropertyValues("rivulet.transport.required=local").run(context ->
                assertThat(context).hasNotFailed());
    }

    @Test
    void aServerAddressOfAMissingTransportFailsStartUp() {
        runner.withPropertyValues("rivulet.server.address=warp://somewhere").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOf(MissingTransportException.class)
                    .hasMessageContaining("rivulet.server.address");
        });
    }

    @Test
    void transportHealthPerTransportOnTheClassPathFollowsTheApplicationsTransports() {
        runner.withPropertyValues("rivulet.server.address=local://transport-health-test",
                "rivulet.transport.required=local").run(context -> {
                    var transports = context.getBean("rivuletTransportsHealthContributor",
                            CompositeHealthContributor.class);
                    HealthIndicator local = (HealthIndicator) transports.getContributor("local");
                    String id = context.getBean(RivuletServerLifecycle.class).boundServer().transport().id();
                    assertThat(local.health().getStatus()).isEqualTo(Status.UP);
                    assertThat(local.health().getDetails()).containsEntry("scheme", "local")
                            .containsEntry("required", true)
                            .containsEntry("transports", Map.of(id, Map.of("state", "open", "endpoints", 0L)));

                    context.getBean(TransportResources.class).forAddress("local://transport-health-test").dispose();
                    assertThat(local.health().getStatus()).isEqualTo(Status.DOWN);
                    assertThat(context.getBean(RivuletServerHealthIndicator.class).health().getStatus())
                            .isEqualTo(Status.DOWN);
                });
    }

    @Test
    void healthBacksOffWhenDisabledOrAbsent() {
        runner.withPropertyValues("management.health.rivulet.enabled=false",
                "rivulet.server.address=local://no-health-test").run(context ->
                        assertThat(context).doesNotHaveBean("rivuletTransportsHealthContributor")
                                .doesNotHaveBean(RivuletServerHealthIndicator.class));
        runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class)).run(context ->
                assertThat(context).hasNotFailed().doesNotHaveBean("rivuletTransportsHealthContributor"));
    }

    @Test
    void nothingWithoutRivuletSpring() {
        runner.withClassLoader(new FilteredClassLoader(RivuletMessageHandler.class)).run(context ->
                assertThat(context).doesNotHaveBean(TransportResources.class));
    }

    @Test
    void aBeanOnATransportOnlyWhereItRuns() {
        ApplicationContextRunner plain = new ApplicationContextRunner();
        plain.withUserConfiguration(OnTransports.class).run(context ->
                assertThat(context).hasBean("onLocal").doesNotHaveBean("onWarpDrive"));
        // the reason of a transport that does not match is in the conditions evaluation report
        plain.withUserConfiguration(OnTransports.class).run(context -> {
            var outcomes = ConditionEvaluationReport.get(context.getBeanFactory()).getConditionAndOutcomesBySource()
                    .get(OnTransports.class.getName() + "#onWarpDrive");
            assertThat(outcomes).singleElement().satisfies(o -> assertThat(o.getOutcome().getMessage())
                    .isEqualTo("@ConditionalOnRivuletTransport (warp-drive) no provider of it is on the class path"));
        });
    }

    static class OnTransports {

        @org.springframework.context.annotation.Bean
        @ConditionalOnRivuletTransport("local")
        String onLocal() {
            return "local";
        }

        @org.springframework.context.annotation.Bean
        @ConditionalOnRivuletTransport("warp-drive")
        String onWarpDrive() {
            return "warp";
        }
    }

    static class Customizers {

        static final RivuletClient CLIENT = RivuletClient.create();
        static final RivuletServer SERVER = RivuletServer.create();

        @org.springframework.context.annotation.Bean
        @Order(1)
        TransportConfigCustomizer doubleDepth() {
            return config -> config.sendQueueDepth(config.sendQueueDepth() * 2).idleStrategy(IdleStrategy::busySpin);
        }

        @org.springframework.context.annotation.Bean
        @Order(2)
        TransportConfigCustomizer plusOne() {
            return config -> config.sendQueueDepth(config.sendQueueDepth() + 1);
        }

        @org.springframework.context.annotation.Bean
        RivuletClientCustomizer client() {
            return client -> CLIENT;
        }

        @org.springframework.context.annotation.Bean
        RivuletServerCustomizer server() {
            return server -> SERVER;
        }
    }
}
