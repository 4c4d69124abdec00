package dev.rivulet.core.metrics;

import dev.rivulet.core.spi.Incubating;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

import java.util.List;

/**
 * Meters of one backend, published beside the standard {@code rivulet.*} ones: the numbers only that transport has
 * (the shm:// connections lingering after close, a provider's own retries). A transport adds them with
 * {@link TransportMetrics#add(BackendMeters)} (from {@code AbstractTransport.addMeters}); they are then registered on
 * every registry the transport's meters are bound to, now and later, and removed with the transport's.
 *
 * <p>Names are {@code rivulet.<backend>.<what>}, lower case, dot separated; every meter carries the {@code tags} it is
 * given ({@code transport} and {@code name}) and may add low-cardinality tags of its own. Values must be counted
 * whether or not a registry is bound: register function counters and gauges over the backend's own counts, so that
 * binding later loses nothing.
 */
@FunctionalInterface
@Incubating
public interface BackendMeters {

    /** Registers the meters on {@code registry}, each tagged with at least {@code tags}, and returns them. */
    List<Meter> bindTo(MeterRegistry registry, Tags tags);
}
