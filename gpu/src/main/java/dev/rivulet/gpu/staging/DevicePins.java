package dev.rivulet.gpu.staging;

import dev.rivulet.gpu.DeviceBuffer;

/**
 * Pins device buffers for the transfers that use them, so a buffer closed meanwhile is freed only once its last
 * copy is done (the pins are {@link DeviceBuffer}'s own, reached through the API package).
 */
public interface DevicePins {

    /** Pins {@code buffer}; false when it is closing. */
    boolean tryPin(DeviceBuffer buffer);

    void unpin(DeviceBuffer buffer);
}
