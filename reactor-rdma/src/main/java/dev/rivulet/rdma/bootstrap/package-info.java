/**
 * The TCP bootstrap both RDMA transports of this module share: the sockets a connection is set up over
 * ({@link dev.rivulet.rdma.bootstrap.BootstrapSockets}) and the liveness channel that connection becomes afterwards
 * ({@link dev.rivulet.rdma.bootstrap.LivenessChannel}). What each transport exchanges in the handshake (endpoint names,
 * queue pair descriptions, rdma_cm tickets) stays in {@code dev.rivulet.rdma.fabric} and {@code dev.rivulet.rdma.verbs}.
 * Internal: the module does not export it.
 */
@NullMarked
package dev.rivulet.rdma.bootstrap;

import org.jspecify.annotations.NullMarked;
