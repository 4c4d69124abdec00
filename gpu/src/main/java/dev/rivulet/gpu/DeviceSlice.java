package dev.rivulet.gpu;

import dev.rivulet.core.error.InvalidRequestException;

/**
 * A byte range of a {@link DeviceBuffer}: what {@link DeviceTransfers} sends, puts, gets and receives into. Bounds
 * are checked when the slice is made, so a slice can never reach outside its buffer.
 */
public record DeviceSlice(DeviceBuffer buffer, long offset, long length) {

    public DeviceSlice {
        if (buffer == null) {
            throw new InvalidRequestException("device buffer is null");
        }
        if (offset < 0 || length < 0 || offset > buffer.length() || length > buffer.length() - offset) {
            throw new InvalidRequestException("slice [" + offset + ", +" + length + ") outside device buffer of "
                    + buffer.length() + " bytes");
        }
    }

    /** The device address of the first byte. */
    public long address() {
        return buffer.address() + offset;
    }

    /** A narrower slice {@code [offset, offset + length)} of this one. */
    public DeviceSlice slice(long offset, long length) {
        if (offset < 0 || length < 0 || offset > this.length || length > this.length - offset) {
            throw new InvalidRequestException("slice [" + offset + ", +" + length + ") outside device slice of "
                    + this.length + " bytes");
        }
        return new DeviceSlice(buffer, this.offset + offset, length);
    }

    /** The device memory this slice belongs to. */
    public DeviceMemory memory() {
        return buffer.memory();
    }
}
