/**
 * How several small sends travel as one coalesced frame ({@link dev.rivulet.core.framing.BatchFraming}): the layout
 * a wire carries as an opaque payload and the engine packs and unpacks.
 *
 * <p>Incubating transport SPI (see {@link dev.rivulet.core.spi.Incubating}).
 */
@NullMarked
@Incubating
package dev.rivulet.core.framing;

import dev.rivulet.core.spi.Incubating;
import org.jspecify.annotations.NullMarked;
