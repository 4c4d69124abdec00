/**
 * The {@code rivulet.gpu.*} meters of a device memory type and of the transfers that use it, tagged with the
 * memory type and the device.
 */
@NullMarked
package dev.rivulet.gpu.metrics;

import org.jspecify.annotations.NullMarked;
