/**
 * Device (GPU) memory over Rivulet endpoints: {@link dev.rivulet.gpu.DeviceMemory} and its buffers, streams and
 * events, and {@link dev.rivulet.gpu.DeviceTransfers}, which sends, receives, puts and gets device slices over an
 * endpoint, staged through host memory or directly where the transport's provider can.
 */
@NullMarked
package dev.rivulet.gpu;

import org.jspecify.annotations.NullMarked;
