/**
 * What applications see of reactor-rdma: the options of its transports ({@link dev.rivulet.rdma.FabricOptions},
 * {@link dev.rivulet.rdma.VerbsOptions}) and the interop entry points ({@link dev.rivulet.rdma.FabricInterop},
 * {@link dev.rivulet.rdma.FabricDeviceMemory}). The transports are found through {@code TransportProvider}.
 */
@NullMarked
package dev.rivulet.rdma;

import org.jspecify.annotations.NullMarked;
