package dev.rivulet.core;

import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.TransportUnavailableException;
import dev.rivulet.core.spi.TransportProvider;

import java.net.URI;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/** Finds transport providers through {@link ServiceLoader} and opens transports by name, scheme or preference. */
public final class Transports {

    private Transports() {
    }

    /** Every provider on the class path, best first. */
    public static List<TransportProvider> providers() {
        return ServiceLoader.load(TransportProvider.class).stream()
                .map(ServiceLoader.Provider::get)
                .sorted(Comparator.comparingInt(TransportProvider::priority).reversed())
                .toList();
    }

    public static Optional<TransportProvider> provider(String name) {
        return providers().stream().filter(p -> p.name().equals(name)).findFirst();
    }

    /** The provider whose scheme matches {@code address} ({@code fabric://...}, {@code local://...}). */
    public static Optional<TransportProvider> forAddress(String address) {
        String scheme;
        try {
            scheme = URI.create(address).getScheme();
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException("not an address: '" + address + "' (" + e.getMessage() + ")");
        }
        return providers().stream().filter(p -> p.scheme().equals(scheme)).findFirst();
    }

    /** Opens the named provider, or fails with why it is unavailable. */
    public static Transport open(String name, TransportConfig config) {
        TransportProvider p = provider(name).orElseThrow(() -> new TransportUnavailableException(
                "no transport provider named '" + name + "'; known: " + describe()));
        var a = p.availability();
        if (!a.available()) {
            throw new TransportUnavailableException("transport '" + name + "' is unavailable: " + a.reason());
        }
        return p.open(config);
    }

    /** The highest-priority available provider (the in-JVM {@code local} one at worst). */
    public static TransportProvider best() {
        return providers().stream().filter(p -> p.availability().available()).findFirst()
                .orElseThrow(() -> new TransportUnavailableException("no transport available: " + describe()));
    }

    /**
     * The transport shared by clients and servers that reach {@code address} without resources, a transport or a
     * configuration of their own: one per provider (and per libfabric provider), opened on first use with the
     * configuration {@link #configureShared} gave (the defaults otherwise; this call may block then: make it off
     * polling threads) and disposed when the JVM exits or by {@link #disposeShared()}.
     */
    public static Transport shared(String address) {
        if (address == null) {
            throw new InvalidRequestException("address is null");
        }
        return SharedTransports.forAddress(address);
    }

    /**
     * Configures the JVM's shared transports: each opens with {@code change} applied to the defaults (polling threads,
     * queue depths, meter registry, options…), as Reactor Netty's {@code HttpResources.set} does for its loops. Call it
     * at start-up, before the first client or server uses them, or after {@link #disposeShared()}; while any shared
     * transport is open it fails with {@link InvalidRequestException}. For a group of clients with a configuration of
     * its own, see {@link TransportResources}.
     */
    public static void configureShared(UnaryOperator<TransportConfig> change) {
        if (change == null) {
            throw new InvalidRequestException("change is null");
        }
        SharedTransports.configure(change);
    }

    /** The configuration the shared transports open with ({@link #configureShared}). */
    public static TransportConfig sharedConfig() {
        return SharedTransports.config();
    }

    /**
     * Disposes every shared transport now, closing the endpoints and servers that use them (for tests and for
     * applications that shut down in order rather than at JVM exit). Later use opens new ones.
     */
    public static void disposeShared() {
        SharedTransports.disposeAll();
    }

    /** One line per provider: name, scheme, and availability with its reason. */
    public static String describe() {
        return providers().stream()
                .map(p -> p.name() + " (" + p.scheme() + "://, " + (p.availability().available() ? "available"
                        : "unavailable: " + p.availability().reason()) + ")")
                .collect(Collectors.joining("; "));
    }
}
