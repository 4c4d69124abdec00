package dev.rivulet.gpu;

import dev.rivulet.core.error.InvalidRequestException;

/**
 * How {@link DeviceTransfers} moves device memory; immutable, each setter returns a new configuration.
 *
 * <ul>
 *   <li>{@link #chunkSize(int)}: the largest chunk of the staged path (a power of two, 4 KiB to 16 MiB, default
 *       1 MiB): each chunk is one copy and one message or RMA operation, staged through one staging buffer of this
 *       size. Each transfer of {@code n} bytes picks its own chunk so that its copies and its network operations
 *       overlap: the smallest power of two at least {@code n / (2 × stagingBuffers)}, but no less than
 *       min(chunkSize, 256 KiB) (below that a piece's fixed costs outweigh the overlap) and no more than
 *       {@code chunkSize} ({@link #chunkFor(long)}). With 16 MiB and 4 staging buffers, a put or get of 1 MiB goes
 *       as 4 chunks of 256 KiB, of 16 MiB as 8 of 2 MiB, of 64 MiB as 8 of 8 MiB and of 256 MiB as 16 of 16 MiB.
 *       The chunks of a message ({@code send}) are in addition at most {@link #MAX_MESSAGE_CHUNK} (1 MiB, the
 *       largest buffer of a transport's buffer pool; {@link #messageChunkFor(long)}): a received message larger
 *       than that lands in a buffer registered for it alone, which the receiver would have to pin for the device
 *       per chunk, whereas pool buffers are pinned once. A message's header names its chunk size, so the receiver
 *       takes whatever chunk size the sender picked. Staging buffers up to 1 MiB come from the transport's buffer
 *       pool, larger ones are buffers with a registration of their own; either way each is registered and pinned
 *       once and kept for the life of the {@link DeviceTransfers}. It must not exceed the transport's largest
 *       message.</li>
 *   <li>{@link #stagingBuffers(int)}: staging buffers per endpoint and direction (at least 2, default 4): the credit
 *       pool of device transfers. A sender holds at most this many chunks between its device and the wire, a
 *       receiver at most this many between the wire and its device, so a slow receiver stalls the sender's copies
 *       and memory stays bounded.</li>
 *   <li>{@link #paths(PathSelection)}: whether puts and gets may go direct ({@link PathSelection#AUTO}, default).</li>
 * </ul>
 */
public final class DeviceTransferConfig {

    public static final int MIN_CHUNK = 4 << 10;
    public static final int MAX_CHUNK = 16 << 20;
    /** The largest chunk of a message: the largest buffer of a transport's buffer pool. */
    public static final int MAX_MESSAGE_CHUNK = 1 << 20;
    /** The chunk a transfer is not cut below, unless {@link #chunkSize()} is smaller. */
    public static final int MIN_ADAPTIVE_CHUNK = 256 << 10;

    private static final DeviceTransferConfig DEFAULTS = new DeviceTransferConfig(1 << 20, 4, PathSelection.AUTO);

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

    /**
     * The chunk size a transfer of {@code length} bytes is cut into, as the class comment says: enough pieces for
     * its copies and network operations to overlap, within {@link #chunkSize()}.
     */
    public int chunkFor(long length) {
        int floor = Math.min(chunkSize, MIN_ADAPTIVE_CHUNK);
        long pieces = 2L * stagingBuffers;
        long wanted = (length + pieces - 1) / pieces;
        if (wanted <= floor) {
            return floor;
        }
        if (wanted >= chunkSize) {
            return chunkSize;
        }
        return Integer.highestOneBit((int) wanted - 1) << 1; // the smallest power of two not below wanted
    }

    /** The chunk size a message of {@code length} bytes is sent in: {@link #chunkFor(long)}, at most 1 MiB. */
    public int messageChunkFor(long length) {
        return Math.min(chunkFor(length), MAX_MESSAGE_CHUNK);
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
