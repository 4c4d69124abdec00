/**
 * The target side of one-sided operations where Rivulet's own code carries them out instead of a NIC: the in-JVM
 * transport, io_uring and Windows RIO, and shm:// for the windows it does not map. {@link
 * dev.rivulet.core.remote.SoftwareTarget} is the one place such a target looks up an incoming key, checks the
 * window, the rights and the alignment, executes the put, get or atomic on the granted memory, and refuses with
 * the one text {@link dev.rivulet.core.memory.MemoryDomain#REFUSED}.
 *
 * <p>Incubating transport SPI (see {@link dev.rivulet.core.spi.Incubating}).
 */
@NullMarked
@Incubating
package dev.rivulet.core.remote;

import dev.rivulet.core.spi.Incubating;
import org.jspecify.annotations.NullMarked;
