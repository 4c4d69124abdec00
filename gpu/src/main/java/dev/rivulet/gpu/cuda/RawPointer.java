package dev.rivulet.gpu.cuda;

import jcuda.Pointer;

/**
 * A JCuda pointer made from, and read back as, a raw address: JCuda keeps the address behind a protected accessor,
 * and a subclass is the intended way to reach it. Used for device pointers ({@code cudaMalloc} fills one in) and
 * for host memory allocated with {@code java.lang.foreign}.
 */
final class RawPointer extends Pointer {

    /** A pointer for {@code cudaMalloc} to fill in. */
    RawPointer() {
    }

    RawPointer(long address) {
        super(address);
    }

    long address() {
        return getNativePointer() + getByteOffset();
    }
}
