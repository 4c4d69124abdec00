/**
 * What every device memory type shares, whatever its native calls (the buffers, streams and events it must close,
 * its meters, its pinned host regions): the base classes a new device memory type extends.
 */
@NullMarked
package dev.rivulet.gpu.spi;

import org.jspecify.annotations.NullMarked;
