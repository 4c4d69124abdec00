package dev.rivulet.gpu;

/**
 * What a device memory type holds at one moment.
 *
 * @param buffers        device buffers allocated and not yet freed
 * @param allocatedBytes their bytes
 * @param streams        copy streams open
 * @param events         copy events not yet closed
 * @param pinnedRegions  host regions pinned for copies
 */
public record DeviceMemoryStats(long buffers, long allocatedBytes, long streams, long events, long pinnedRegions) {
}
