/**
 * The direct path: device memory registered with the transport's provider as it is (GPUDirect RDMA), found
 * through {@code Transport.extension(DeviceMemoryRegistrar.class)}, so puts and gets move it without host copies.
 */
@NullMarked
package dev.rivulet.gpu.direct;

import org.jspecify.annotations.NullMarked;
