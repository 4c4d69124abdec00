/**
 * How a connection notices a peer that vanished: heartbeats, the peer timeout and the write timeout
 * ({@link dev.rivulet.core.liveness.LivenessSettings}, the {@code liveness.*} options).
 */
@NullMarked
package dev.rivulet.core.liveness;

import org.jspecify.annotations.NullMarked;
