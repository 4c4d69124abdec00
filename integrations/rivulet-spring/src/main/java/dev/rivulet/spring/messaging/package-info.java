/**
 * {@code @MessageMapping} controllers served as a Rivulet {@link dev.rivulet.core.interaction.Responder}, on
 * spring-messaging's reactive handler-method infrastructure as Spring's RSocket support is:
 * {@link dev.rivulet.spring.messaging.RivuletMessageHandler} finds the methods, decodes their arguments and encodes
 * what they return with the codecs of {@link dev.rivulet.spring.codec.RivuletStrategies}.
 */
@NullMarked
package dev.rivulet.spring.messaging;

import org.jspecify.annotations.NullMarked;
