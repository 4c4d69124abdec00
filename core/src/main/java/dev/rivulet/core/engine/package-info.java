/**
 * The engine between the reactive API and a transport's connections, and the wire kit a transport implements
 * (incubating SPI): a transport extends {@link dev.rivulet.core.engine.AbstractTransport}, implements one
 * {@link dev.rivulet.core.engine.Wire} per connection that posts {@link dev.rivulet.core.engine.Op}s and reports
 * {@link dev.rivulet.core.engine.WireEvents}, and keeps a {@link dev.rivulet.core.engine.LivenessMonitor} per
 * connection; {@link dev.rivulet.core.engine.EndpointEngine} holds everything transport-neutral above the wire
 * (credits, the pending FIFO, reactive signals) and is made by {@code AbstractTransport.newEndpoint}, never by a
 * transport directly.
 *
 * <p>Incubating transport SPI: exported for transports of other modules, but signatures may still change between
 * minor releases (see {@link dev.rivulet.core.spi.Incubating} and {@code docs/writing-a-transport.md}).
 */
@NullMarked
@Incubating
package dev.rivulet.core.engine;

import dev.rivulet.core.spi.Incubating;
import org.jspecify.annotations.NullMarked;
