package dev.rivulet.samples.webflux;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Import;

/**
 * The block service: {@code --blocks.role=storage} runs the storage node, {@code front} the HTTP service,
 * {@code both} (the default) both in one process. See {@code docs/webflux.md}. Rivulet itself comes from the starter's
 * auto-configuration. No component scanning: which beans exist depends on the role, and
 * {@link BlockServiceConfiguration} says so in one place.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableConfigurationProperties(BlockServiceProperties.class)
@Import(BlockServiceConfiguration.class)
public class WebfluxSampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(WebfluxSampleApplication.class, args);
    }
}
