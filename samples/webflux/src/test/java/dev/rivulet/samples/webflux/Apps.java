package dev.rivulet.samples.webflux;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportResources;
import dev.rivulet.core.Transports;
import dev.rivulet.core.memory.BufferPool;
import dev.rivulet.core.spi.TransportProvider;
import dev.rivulet.samples.webflux.storage.StorageNode;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.web.reactive.server.WebTestClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Starts the sample's applications for the tests, on random ports, talking over the best network transport this
 * machine has (libfabric {@code tcp}, else io_uring; the in-JVM transport with both roles in one process, else).
 */
final class Apps {

    private Apps() {
    }

    /** The storage node's bind address for a test: loopback, an ephemeral port. */
    static String networkAddress() {
        if (available("libfabric")) {
            return "fabric://127.0.0.1:0?provider=tcp";
        }
        if (available("io_uring")) {
            return "uring://127.0.0.1:0";
        }
        return null;
    }

    static boolean available(String provider) {
        return Transports.provider(provider).map(TransportProvider::availability).map(a -> a.available())
                .orElse(false);
    }

    /** A storage node alone. */
    static ConfigurableApplicationContext storage(String address, String... more) {
        List<String> args = new ArrayList<>(List.of("--blocks.role=storage", "--blocks.address=" + address,
                "--server.port=0", "--rivulet.transport.name=storage"));
        args.addAll(List.of(more));
        return new SpringApplicationBuilder(WebfluxSampleApplication.class).run(args.toArray(String[]::new));
    }

    /** A front connected to {@code storageAddress}. */
    static ConfigurableApplicationContext front(String storageAddress, Class<?>... extraConfig) {
        List<Class<?>> sources = new ArrayList<>(List.of(WebfluxSampleApplication.class));
        sources.addAll(List.of(extraConfig));
        return new SpringApplicationBuilder(sources.toArray(Class[]::new)).run("--blocks.role=front",
                "--blocks.address=" + storageAddress, "--server.port=0", "--rivulet.transport.name=front");
    }

    static String storageAddress(ConfigurableApplicationContext storage) {
        return storage.getBean(StorageNode.class).address();
    }

    /** The transport {@code app} reaches the storage node on (or listens on), out of the starter's resources. */
    static Transport transport(ConfigurableApplicationContext app) {
        return app.getBean(TransportResources.class).forAddress(app.getBean(StorageAddress.class).connect());
    }

    static int port(ConfigurableApplicationContext app) {
        return Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
    }

    /**
     * Waits, up to {@code deadline}, for {@code done}: what follows a client or a storage node going away happens
     * asynchronously, and on a loaded machine it may take a while.
     */
    static void await(BooleanSupplier done, Duration deadline, Supplier<String> what) {
        long giveUpAt = System.nanoTime() + deadline.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - giveUpAt > 0) {
                throw new AssertionError("not within " + deadline + ": " + what.get());
            }
            LockSupport.parkNanos(10_000_000);
        }
    }

    /** Waits for {@code pool} to have no more than {@code idle} buffers out, as before {@code when}. */
    static void awaitOutstanding(BufferPool pool, long idle, String when) {
        await(() -> pool.outstanding() <= idle, Duration.ofSeconds(60), () -> "registered buffers out " + when
                + " back to " + idle + " (" + pool.outstanding() + " now)");
    }

    /** Waits for {@code http}'s front to reach its storage node: a GET of no block is then a 404, not a 503. */
    static void awaitConnected(WebTestClient http) {
        await(() -> http.get().uri("/blocks/none").exchange().expectBody(String.class).returnResult().getStatus()
                .value() == 404, Duration.ofSeconds(60), () -> "the front connects to the storage node");
    }

    /** Closes each of {@code apps} that was started, the front before the storage node when given in that order. */
    static void close(ConfigurableApplicationContext... apps) {
        for (ConfigurableApplicationContext app : apps) {
            if (app != null) {
                app.close();
            }
        }
    }

    static WebTestClient client(ConfigurableApplicationContext app) {
        return WebTestClient.bindToServer().baseUrl("http://127.0.0.1:" + port(app))
                .responseTimeout(Duration.ofSeconds(60)).codecs(c -> c.defaultCodecs().maxInMemorySize(-1)).build();
    }
}
