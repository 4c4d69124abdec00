/**
 * How transports are found and what they may offer besides the API: a {@link dev.rivulet.core.spi.TransportProvider}
 * per backend, listed for {@link java.util.ServiceLoader}, its {@link dev.rivulet.core.spi.Availability}, and
 * extensions a transport hands out through {@code Transport.extension} such as
 * {@link dev.rivulet.core.spi.DeviceMemoryRegistrar}. {@link dev.rivulet.core.spi.Incubating} marks what of the
 * transport SPI may still change.
 */
@NullMarked
package dev.rivulet.core.spi;

import org.jspecify.annotations.NullMarked;
