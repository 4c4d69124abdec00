/**
 * The Reactor Netty peer of the TCP benchmarks ({@code UringBenchCli}, {@code FabricBenchCli}), configured once for
 * both as Reactor Netty does best: socket buffers and {@code TCP_NODELAY} ({@link
 * dev.rivulet.samples.bench.netty.NettyPeer}), a sender of retained duplicates of one prepared frame ({@link
 * dev.rivulet.samples.bench.netty.NettyCopyFrames}), a receiver that walks frames where the socket's buffer holds them
 * ({@link dev.rivulet.samples.bench.netty.NettyFrameWalker}) and the client that drives the measurements ({@link
 * dev.rivulet.samples.bench.netty.NettyClient}).
 */
@NullMarked
package dev.rivulet.samples.bench.netty;

import org.jspecify.annotations.NullMarked;
