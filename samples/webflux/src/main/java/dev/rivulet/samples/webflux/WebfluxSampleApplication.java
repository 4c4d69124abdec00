package dev.rivulet.samples.webflux;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Import;

/**
 * The block service: {@code --rivulet.role=storage} runs the storage node, {@code front} the HTTP service,
 * {@code both} (the default) both in one process. See {@code docs/webflux.md}. No component scanning: which beans
 * exist depends on the role, and {@link RivuletConfiguration} says so in one place.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableConfigurationProperties(RivuletProperties.class)
@Import(RivuletConfiguration.class)
public class WebfluxSampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(WebfluxSampleApplication.class, args);
    }
}
