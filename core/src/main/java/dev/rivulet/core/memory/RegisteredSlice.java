package dev.rivulet.core.memory;

import dev.rivulet.core.error.InvalidRequestException;

import java.lang.foreign.MemorySegment;

/**
 * A local byte range inside a registered region: the source of a {@code put}, the destination of a {@code get}.
 * Bounds are checked when the slice is made, so a slice can never reach outside its region.
 */
public record RegisteredSlice(MemoryRegion region, long offset, long length) {

    public RegisteredSlice {
        if (region == null) {
            throw new InvalidRequestException("region is null");
        }
        if (offset < 0 || length < 0 || offset > region.length() || length > region.length() - offset) {
            throw new InvalidRequestException("slice [" + offset + ", +" + length + ") outside registered region of "
                    + region.length() + " bytes");
        }
    }

    /** The bytes of this slice. */
    public MemorySegment segment() {
        return region.segment().asSlice(offset, length);
    }

    /** The native address of the first byte. */
    public long address() {
        return region.segment().address() + offset;
    }
}
