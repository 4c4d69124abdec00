package dev.rivulet.spring.boot.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * How the application shuts down, as Spring Boot's web servers read it: {@code server.shutdown} ({@code graceful},
 * Boot's default, or {@code immediate}) and {@code spring.lifecycle.timeout-per-shutdown-phase} (30 s by default), so
 * that Rivulet's server drains as long as the web server does.
 *
 * @param graceful whether requests in flight may finish before endpoints close
 * @param timeout  how long they may take
 */
record ShutdownSettings(boolean graceful, Duration timeout) {

    static ShutdownSettings of(Environment environment) {
        Binder binder = Binder.get(environment);
        String shutdown = binder.bind("server.shutdown", String.class).orElse("graceful");
        Duration timeout = binder.bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
                .orElse(Duration.ofSeconds(30));
        return new ShutdownSettings(!shutdown.equalsIgnoreCase("immediate"), timeout);
    }
}
