/**
 * What applications see of reactor-rio: the options of its transports ({@link dev.rivulet.rio.UringOptions},
 * {@link dev.rivulet.rio.RioOptions}, {@link dev.rivulet.rio.ShmOptions}, {@link dev.rivulet.rio.StreamOptions}).
 * The transports themselves are found through {@code TransportProvider}.
 */
@NullMarked
package dev.rivulet.rio;

import org.jspecify.annotations.NullMarked;
