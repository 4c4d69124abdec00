/**
 * The polling threads: a {@link dev.rivulet.core.loop.ProgressEngine} of {@link dev.rivulet.core.loop.ProgressLoop}s,
 * each running submitted tasks and polling its {@link dev.rivulet.core.loop.Pollable}s, sleeping through a
 * {@link dev.rivulet.core.loop.Waiter} a backend may replace with its completion queue's wait.
 *
 * <p>Incubating transport SPI (see {@link dev.rivulet.core.spi.Incubating}).
 */
@NullMarked
@Incubating
package dev.rivulet.core.loop;

import dev.rivulet.core.spi.Incubating;
import org.jspecify.annotations.NullMarked;
