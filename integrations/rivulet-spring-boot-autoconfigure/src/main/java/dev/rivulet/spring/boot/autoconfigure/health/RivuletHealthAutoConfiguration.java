package dev.rivulet.spring.boot.autoconfigure.health;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

import dev.rivulet.core.TransportResources;
import dev.rivulet.core.Transports;
import dev.rivulet.core.spi.TransportProvider;
import dev.rivulet.spring.boot.autoconfigure.RivuletAutoConfiguration;
import dev.rivulet.spring.boot.autoconfigure.RivuletProperties;
import dev.rivulet.spring.boot.autoconfigure.RivuletServerLifecycle;

/**
 * Rivulet's health indicators, when Spring Boot's health module is present and
 * {@code management.health.rivulet.enabled} is not false: {@code rivuletTransports} (one per kind of transport on the
 * class path: its availability, and the state of each of its transports the application opened) and
 * {@code rivuletServer}.
 */
@AutoConfiguration(after = RivuletAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(TransportResources.class)
@ConditionalOnEnabledHealthIndicator("rivulet")
public class RivuletHealthAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "rivuletTransportsHealthContributor")
    public CompositeHealthContributor rivuletTransportsHealthContributor(RivuletProperties properties,
                                                                         TransportResources resources) {
        Map<String, HealthIndicator> transports = new LinkedHashMap<>();
        for (TransportProvider provider : Transports.providers()) {
            boolean required = properties.getTransport().getRequired().contains(provider.name());
            transports.put(provider.name(), new TransportHealthIndicator(provider, required, resources));
        }
        return CompositeHealthContributor.fromMap(transports);
    }

    @Bean
    @ConditionalOnBean(RivuletServerLifecycle.class)
    @ConditionalOnMissingBean(name = "rivuletServerHealthIndicator")
    public RivuletServerHealthIndicator rivuletServerHealthIndicator(RivuletServerLifecycle server) {
        return new RivuletServerHealthIndicator(server);
    }
}
