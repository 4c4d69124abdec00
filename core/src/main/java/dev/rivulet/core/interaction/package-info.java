/**
 * Interaction models on one connection: {@link dev.rivulet.core.interaction.Requester}'s fire-and-forget,
 * request-response, request-stream and request-channel (RSocket's names and semantics), multiplexed as streams over
 * one endpoint, each with receiver-granted credits of its own; a {@link dev.rivulet.core.interaction.Responder}
 * answers, usually a {@link dev.rivulet.core.interaction.Router} dispatching on the route in the request's
 * {@link dev.rivulet.core.interaction.Metadata}. Start at {@link dev.rivulet.core.interaction.Interactions}.
 */
@NullMarked
package dev.rivulet.core.interaction;

import org.jspecify.annotations.NullMarked;
