package dev.rivulet.core.spi;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;

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

    /** Opens a transport. Fails with {@code TransportUnavailableException} when not {@link #availability()}. */
    Transport open(TransportConfig config);
}
