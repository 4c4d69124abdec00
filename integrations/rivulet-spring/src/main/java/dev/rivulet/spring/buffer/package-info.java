/**
 * Spring's {@link org.springframework.core.io.buffer.DataBuffer} on Rivulet's registered, pooled memory: what Spring's
 * encoders write into, so that an encoded body already sits where the transport sends from and becomes a
 * {@link dev.rivulet.core.interaction.Payload} without a copy.
 */
@NullMarked
package dev.rivulet.spring.buffer;

import org.jspecify.annotations.NullMarked;
