package dev.rivulet.gpu;

import dev.rivulet.core.error.InvalidRequestException;

/**
 * How {@link DeviceTransfers} moves device memory; immutable, each setter returns a new configuration.
 *
 * <ul>
 *   <li>{@link #chunkSize(int)}: bytes per chunk of the staged path (a power of two, 4 KiB to 1 MiB, default 1 MiB):
 *       each chunk is one copy and one message or RMA operation. Staging buffers come from the transport's buffer
 *       pool, whose largest pooled size is 1 MiB; pooled memory stays pinned once pinned, larger buffers would be
 *       registered and pinned per message.</li>
 *   <li>{@link #stagingBuffers(int)}: staging buffers per endpoint and direction (at least 2, default 4): the credit
 *       pool of device transfers. A sender holds at most this many chunks between its device and the wire, a
 *       receiver at most this many between the wire and its device, so a slow receiver stalls the sender's copies
 *       and memory stays bounded.</li>
 *   <li>{@link #paths(PathSelection)}: whether puts and gets may go direct ({@link PathSelection#AUTO}, default).</li>
 * </ul>
 */
public final class DeviceTransferConfig {

    public static final int MIN_CHUNK = 4 << 10;
    public static final int MAX_CHUNK = 1 << 20;

    private static final DeviceTransferConfig DEFAULTS = new DeviceTransferConfig(MAX_CHUNK, 4, PathSelection.AUTO);

    private final int chunkSize;
    private final int stagingBuffers;
    private final PathSelection paths;

    private DeviceTransferConfig(int chunkSize, int stagingBuffers, PathSelection paths) {
        this.chunkSize = chunkSize;
        this.stagingBuffers = stagingBuffers;
        this.paths = paths;
    }

    public static DeviceTransferConfig defaults() {
        return DEFAULTS;
    }

    public int chunkSize() {
        return chunkSize;
    }

    public int stagingBuffers() {
        return stagingBuffers;
    }

    public PathSelection paths() {
        return paths;
    }

    public DeviceTransferConfig chunkSize(int bytes) {
        if (bytes < MIN_CHUNK || bytes > MAX_CHUNK || Integer.bitCount(bytes) != 1) {
            throw new InvalidRequestException("chunk size must be a power of two from " + MIN_CHUNK + " to "
                    + MAX_CHUNK + ", got " + bytes);
        }
        return new DeviceTransferConfig(bytes, stagingBuffers, paths);
    }

    public DeviceTransferConfig stagingBuffers(int count) {
        if (count < 2 || count > 256) {
            throw new InvalidRequestException("staging buffers must be 2..256 (copies and transfers overlap only "
                    + "with two or more), got " + count);
        }
        return new DeviceTransferConfig(chunkSize, count, paths);
    }

    public DeviceTransferConfig paths(PathSelection selection) {
        if (selection == null) {
            throw new InvalidRequestException("path selection must not be null");
        }
        return new DeviceTransferConfig(chunkSize, stagingBuffers, selection);
    }

    @Override
    public String toString() {
        return "DeviceTransferConfig[chunkSize=" + chunkSize + ", stagingBuffers=" + stagingBuffers + ", paths="
                + paths + "]";
    }
}
