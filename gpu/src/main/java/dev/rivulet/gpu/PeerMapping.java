package dev.rivulet.gpu;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Another allocation's device memory made addressable here, for device-to-device copies
 * ({@link CopyStream#copyToPeer}, {@link CopyStream#copyFromPeer}): an allocation of another process of this host
 * opened from its IPC handle ({@link DeviceMemory#openIpc}), or one of this process seen through the same interface
 * ({@link DeviceMemory#mapLocal}). Closing it unmaps what was opened; copies using it must have ended first.
 */
public abstract class PeerMapping implements AutoCloseable {

    private final long address;
    private final long length;
    private final int device;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param address the first byte's address in this process (a device pointer for CUDA)
     * @param length  bytes mapped (the whole exported allocation)
     * @param device  the device ordinal the address belongs to in this process
     */
    protected PeerMapping(long address, long length, int device) {
        this.address = address;
        this.length = length;
        this.device = device;
    }

    public final long address() {
        return address;
    }

    public final long length() {
        return length;
    }

    public final int device() {
        return device;
    }

    public final boolean isOpen() {
        return !closed.get();
    }

    /** Undoes the mapping natively (called once; may block). */
    protected abstract void unmap();

    /** Unmaps (may block: never on a polling thread). Idempotent. */
    @Override
    public final void close() {
        if (closed.compareAndSet(false, true)) {
            unmap();
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[device=" + device + ", address=0x" + Long.toHexString(address)
                + ", length=" + length + (isOpen() ? "" : ", closed") + "]";
    }
}
