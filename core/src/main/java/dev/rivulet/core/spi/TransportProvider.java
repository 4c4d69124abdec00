package dev.rivulet.core.spi;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.TransportOption;

import java.util.List;
import java.util.Map;

/**
 * A backend, found through {@link java.util.ServiceLoader} (list implementations in
 * {@code META-INF/services/dev.rivulet.core.spi.TransportProvider}).
 */
public interface TransportProvider {

    /** Short unique name, e.g. {@code local}, {@code libfabric}, {@code io_uring}, {@code rio}. */
    String name();

    /** URI scheme of the addresses this provider understands, e.g. {@code local}, {@code fabric}, {@code uring}. */
    String scheme();

    /** Preference when choosing the best available transport: higher wins ({@code local} is 0). */
    int priority();

    /** Checked without side effects beyond loading a library; cheap enough to call repeatedly. */
    Availability availability();

    /**
     * Opens a transport. Fails with {@code TransportUnavailableException} when not {@link #availability()}, and
     * with {@code InvalidRequestException} for an option it does not know or cannot read.
     */
    Transport open(TransportConfig config);

    /** The provider options a transport of this kind reads (besides {@code security.*} and {@code liveness.*}). */
    List<TransportOption<?>> options();

    /**
     * The options {@code address} implies for a transport that is to reach it, e.g. libfabric's provider from
     * {@code fabric://host:port?provider=shm}: a client opening a transport for an address needs it said only once.
     * Two addresses with the same implied options can share a transport.
     */
    default Map<String, String> optionsFor(String address) {
        return Map.of();
    }
}
