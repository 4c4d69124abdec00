/**
 * What every connection's {@link dev.rivulet.core.engine.Wire} does the same way, whatever its medium: the end
 * states of a connection and the errors operations end with ({@link dev.rivulet.core.engine.wire.WireState}), the
 * liveness verdicts and their errors ({@link dev.rivulet.core.engine.wire.WireLiveness}), the drain a closed wire
 * keeps up on its loop until the peer finished or a deadline passed ({@link dev.rivulet.core.engine.wire.Linger}),
 * and how a failure on the receive path, a peer breaking the protocol among them, becomes the typed error that ends
 * the connection ({@link dev.rivulet.core.engine.wire.WireFailures}). A wire keeps only what is specific to its
 * medium.
 *
 * <p>Incubating transport SPI (see {@link dev.rivulet.core.spi.Incubating}).
 */
@NullMarked
@Incubating
package dev.rivulet.core.engine.wire;

import dev.rivulet.core.spi.Incubating;
import org.jspecify.annotations.NullMarked;
