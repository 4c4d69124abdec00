package dev.rivulet.rio.shm;

import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.rio.ShmOptions;

/** What a shared-memory transport reads from its configuration ({@link ShmOptions}), checked together. */
record ShmSettings(int ringBytes, int largeMessageThreshold, int poolBytes, int maxMessageSize, int spinBeforeSleep,
                   boolean crossMemoryAttach, boolean mapWindows, boolean nonDumpable, String directory) {

    static ShmSettings from(TransportConfig config) {
        ShmSettings s = new ShmSettings(config.get(ShmOptions.RING_BYTES),
                config.get(ShmOptions.LARGE_MESSAGE_THRESHOLD), config.get(ShmOptions.POOL_BYTES),
                config.get(ShmOptions.MAX_MESSAGE_SIZE), config.get(ShmOptions.SPIN_BEFORE_SLEEP),
                config.get(ShmOptions.CROSS_MEMORY_ATTACH), config.get(ShmOptions.MAP_WINDOWS),
                config.get(ShmOptions.NON_DUMPABLE), config.get(ShmOptions.DIRECTORY));
        if (Integer.bitCount(s.ringBytes) != 1) {
            throw new InvalidRequestException(ShmOptions.RING_BYTES.key() + " must be a power of two, got "
                    + s.ringBytes);
        }
        if (Integer.bitCount(s.poolBytes) != 1) {
            throw new InvalidRequestException(ShmOptions.POOL_BYTES.key() + " must be a power of two, got "
                    + s.poolBytes);
        }
        if (s.largeMessageThreshold > s.ringBytes / 8) {
            throw new InvalidRequestException(ShmOptions.LARGE_MESSAGE_THRESHOLD.key() + " ("
                    + s.largeMessageThreshold + ") must be at most an eighth of " + ShmOptions.RING_BYTES.key()
                    + " (" + s.ringBytes + ")");
        }
        return s;
    }

    /**
     * Whether peers may map this side's windows: not from a non-dumpable process, whose descriptors no peer of the
     * same user can open (they would ask, fail and be served anyway).
     */
    boolean offersWindows() {
        return mapWindows && !nonDumpable;
    }

    /**
     * Whether peers may copy into and out of this process with {@code process_vm_*}: only where this side opted in,
     * since an answer that allows a copy names where the bytes lie in this process, and never from a non-dumpable
     * process (which exists to keep that memory out of reach).
     */
    boolean offersCrossMemory() {
        return crossMemoryAttach && !nonDumpable;
    }
}
