/**
 * The connection set-up every listener runs before a connection becomes an endpoint: a versioned hello, the optional
 * mutual proof of a shared secret, then the transport's own parameters, optionally inside TLS
 * ({@link dev.rivulet.core.handshake.Handshake} over a {@link dev.rivulet.core.handshake.HandshakeIo}).
 *
 * <p>Incubating transport SPI (see {@link dev.rivulet.core.spi.Incubating}).
 */
@NullMarked
@Incubating
package dev.rivulet.core.handshake;

import dev.rivulet.core.spi.Incubating;
import org.jspecify.annotations.NullMarked;
