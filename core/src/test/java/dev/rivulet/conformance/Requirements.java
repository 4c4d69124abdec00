package dev.rivulet.conformance;

import dev.rivulet.core.spi.Availability;
import org.junit.jupiter.api.Assumptions;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Which native transports a test run must have. A contributor building with plain {@code ./mvnw verify} on a machine
 * without libfabric or io_uring gets those tests skipped with the reason; {@code bin/test} and CI, which install them,
 * set {@code -Drivulet.require=libfabric,io_uring,shm} and a missing one then fails the run instead of passing it
 * quietly.
 */
public final class Requirements {

    /** The system property naming the required providers, comma-separated. */
    public static final String PROPERTY = "rivulet.require";

    private static final List<String> KNOWN = List.of("libfabric", "io_uring", "rio", "shm", "verbs");

    private Requirements() {
    }

    /** Skips the test (with the reason) when {@code provider} is unavailable, or fails it when it is required. */
    public static void assume(Availability availability, String provider) {
        if (availability.available()) {
            return;
        }
        if (isRequired(provider)) {
            throw new AssertionError(provider + " is required here (" + PROPERTY + "=" + System.getProperty(PROPERTY)
                    + ") but unavailable: " + availability.reason());
        }
        Assumptions.abort(provider + " is unavailable here: " + availability.reason());
    }

    public static boolean isRequired(String provider) {
        return required().contains(provider.toLowerCase(Locale.ROOT));
    }

    /** The provider an unavailability message names ({@code "libfabric is unavailable: ..."}), or null. */
    static String providerNamedIn(String message) {
        if (message == null) {
            return null;
        }
        String m = message.toLowerCase(Locale.ROOT);
        return KNOWN.stream().filter(m::contains).findFirst().orElse(null);
    }

    private static Set<String> required() {
        return Arrays.stream(System.getProperty(PROPERTY, "").split(",")).map(String::trim)
                .map(s -> s.toLowerCase(Locale.ROOT)).filter(s -> !s.isEmpty()).collect(Collectors.toSet());
    }
}
