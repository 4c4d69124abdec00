/**
 * What the libfabric wire ({@code dev.rivulet.rdma.fabric}) and the ibverbs wire ({@code dev.rivulet.rdma.verbs}) do
 * the same way, kept once: their life around the library's queues ({@link dev.rivulet.rdma.wire.RdmaWire}: the close
 * order, the drain after it, the bootstrap channel's goodbye or abort), how a connection ends
 * ({@link dev.rivulet.rdma.wire.ConnectionFate}: the peer's goodbye or loss from the bootstrap liveness channel, a
 * loss an operation noticed and its grace period, the break reported to the engine, on top of core's
 * {@link dev.rivulet.core.engine.wire.WireState}), the write timeout ({@link dev.rivulet.rdma.wire.WriteTimeout}), the
 * receive buffers a wire owes its peer ({@link dev.rivulet.rdma.wire.OwedReceives}) and the exceptions a failed
 * operation becomes ({@link dev.rivulet.rdma.wire.OperationErrors}). How each posts and reaps stays with its own
 * library. Internal: the module does not export it.
 */
@NullMarked
package dev.rivulet.rdma.wire;

import org.jspecify.annotations.NullMarked;
