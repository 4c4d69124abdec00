package dev.rivulet.spring.boot.autoconfigure;

import java.util.Optional;

import dev.rivulet.core.Transports;
import dev.rivulet.core.spi.TransportProvider;

/**
 * A transport the configuration asks for (in {@code rivulet.transport.required} or by the scheme of
 * {@code rivulet.server.address}) is not on the class path or cannot run on this machine. Start-up fails with it, and
 * {@link MissingTransportFailureAnalyzer} says what to do.
 */
public class MissingTransportException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String requested;
    private final String property;
    private final String reason;

    MissingTransportException(String requested, String property, String reason) {
        super("transport " + requested + " (" + property + ") is missing: " + reason);
        this.requested = requested;
        this.property = property;
        this.reason = reason;
    }

    /** The transport's name or address, as the configuration gave it. */
    public String requested() {
        return requested;
    }

    /** The property that asked for it. */
    public String property() {
        return property;
    }

    /** Why it cannot be used. */
    public String reason() {
        return reason;
    }

    /** Fails unless the provider named {@code name} is on the class path and available. */
    static void requireNamed(String name, String property) {
        require(name, property, Transports.provider(name));
    }

    /** Fails unless the provider of {@code address}'s scheme is on the class path and available. */
    static void requireForAddress(String address, String property) {
        require(address, property, Transports.forAddress(address));
    }

    private static void require(String requested, String property, Optional<TransportProvider> provider) {
        if (provider.isEmpty()) {
            throw new MissingTransportException(requested, property, "no provider for it is on the class path");
        }
        var availability = provider.get().availability();
        if (!availability.available()) {
            throw new MissingTransportException(requested, property, "transport " + provider.get().name()
                    + " is unavailable on this machine: " + availability.reason());
        }
    }
}
