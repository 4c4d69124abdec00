/**
 * The {@code rivulet.*} meters of a transport ({@link dev.rivulet.core.metrics.TransportMetrics}), counted always
 * and published when bound to a Micrometer registry, and the hook through which a backend adds meters of its own
 * ({@link dev.rivulet.core.metrics.BackendMeters}).
 *
 * <p>Incubating transport SPI (see {@link dev.rivulet.core.spi.Incubating}).
 */
@NullMarked
@Incubating
package dev.rivulet.core.metrics;

import dev.rivulet.core.spi.Incubating;
import org.jspecify.annotations.NullMarked;
