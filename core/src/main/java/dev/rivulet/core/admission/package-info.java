/**
 * What a stranger can cost a listener before anyone has proved anything, bounded in one place for every transport:
 * {@link dev.rivulet.core.admission.AdmissionControl} bounds connections and unfinished set-ups, in all and per
 * source address, and {@link dev.rivulet.core.admission.ReceiveBudget} bounds the memory peers can make a listener
 * commit ahead of the bytes they actually sent. The limits are {@code security.*} options
 * ({@link dev.rivulet.core.security.SecuritySettings}); what they cost is counted in the transport's meters.
 *
 * <p>Incubating transport SPI (see {@link dev.rivulet.core.spi.Incubating}).
 */
@NullMarked
@Incubating
package dev.rivulet.core.admission;

import dev.rivulet.core.spi.Incubating;
import org.jspecify.annotations.NullMarked;
