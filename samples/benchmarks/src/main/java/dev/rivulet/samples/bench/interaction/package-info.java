/**
 * The interaction-model benchmark: Rivulet's request-response and request-stream ({@code dev.rivulet.core.interaction})
 * over io_uring and {@code shm://} against RSocket-java over TCP (Reactor Netty), between two JVMs, driven by one
 * driver for both ({@link dev.rivulet.samples.bench.interaction.InteractionDriver}) so that each side does the same
 * work per request. {@link dev.rivulet.samples.bench.interaction.InteractionBenchCli} runs it.
 * {@link dev.rivulet.samples.bench.interaction.LocalInteractionBenchmark} is the in-process JMH benchmark of the
 * session's own cost per request (time and allocation) over the {@code local} transport.
 */
@NullMarked
package dev.rivulet.samples.bench.interaction;

import org.jspecify.annotations.NullMarked;
