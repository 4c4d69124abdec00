/**
 * The requesting side for Spring applications: {@link dev.rivulet.spring.requester.RivuletRequester} sends objects
 * and receives objects over a {@link dev.rivulet.core.interaction.Requester}, encoded and decoded with the codecs of
 * {@link dev.rivulet.spring.codec.RivuletStrategies}, as {@code RSocketRequester} does over RSocket.
 */
@NullMarked
package dev.rivulet.spring.requester;

import org.jspecify.annotations.NullMarked;
