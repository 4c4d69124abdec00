/**
 * The libfabric transport: a fabric, domain and address vector per transport, an RDM endpoint and completion
 * queue per connection set up through a bootstrap exchange, eager and rendezvous messages, RMA and atomics by the
 * provider. The libfabric binding is {@code dev.rivulet.rdma.fabric.sys}.
 */
@NullMarked
package dev.rivulet.rdma.fabric;

import org.jspecify.annotations.NullMarked;
