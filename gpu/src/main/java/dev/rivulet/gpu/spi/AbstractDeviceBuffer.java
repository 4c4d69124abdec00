package dev.rivulet.gpu.spi;

import dev.rivulet.gpu.DeviceBuffer;

/** A {@link DeviceBuffer} of an {@link AbstractDeviceMemory}, which counts it until its memory is given back. */
public abstract class AbstractDeviceBuffer extends DeviceBuffer {

    private final AbstractDeviceMemory memory;

    protected AbstractDeviceBuffer(AbstractDeviceMemory memory, long address, long length) {
        super(memory, address, length);
        this.memory = memory;
    }

    /** Gives the memory back to the device natively (called once; may block). */
    protected abstract void deallocate();

    @Override
    protected final void free() {
        memory.freed(this);
        deallocate();
    }
}
