/**
 * Objects to and from payload data with Spring's {@link org.springframework.core.codec.Encoder}s and
 * {@link org.springframework.core.codec.Decoder}s, chosen by the content type in a payload's metadata:
 * {@link dev.rivulet.spring.codec.RivuletStrategies} holds them with the registered-memory buffer factory and the
 * route matcher, for both the responding and the requesting side.
 */
@NullMarked
package dev.rivulet.spring.codec;

import org.jspecify.annotations.NullMarked;
