package dev.rivulet.gpu.cuda;

import jcuda.NativePointerObject;
import jcuda.Pointer;
import org.jspecify.annotations.Nullable;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A JCuda pointer that is pointed at a new address for each call instead of being made anew: a copy stream keeps
 * one per side of its copies, so queuing a copy allocates nothing. JCuda keeps the address in a private field that
 * its native code reads on each call, and offers no setter; this writes that field (what {@code Pointer}'s own
 * constructor does) through a {@link VarHandle}. Where the field cannot be reached (another JCuda version), {@link
 * #movable()} says so and the stream makes a {@link RawPointer} per copy instead, as before.
 */
final class MovablePointer extends Pointer {

    private static final @Nullable VarHandle ADDRESS = addressField();

    private static @Nullable VarHandle addressField() {
        try {
            VarHandle h = MethodHandles.privateLookupIn(NativePointerObject.class, MethodHandles.lookup())
                    .findVarHandle(NativePointerObject.class, "nativePointer", long.class);
            // Check on a throwaway pointer that writing the field moves the address the native code will read.
            MovablePointer probe = new MovablePointer(h);
            h.set(probe, 0x1000L);
            return probe.getNativePointer() == 0x1000L && probe.getByteOffset() == 0 ? h : null;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private MovablePointer(@Nullable VarHandle unused) {
        // the probe of addressField(), made before ADDRESS is set
    }

    MovablePointer() {
        this(ADDRESS);
    }

    /** Whether pointers can be moved on this JCuda; when not, callers make a {@link RawPointer} per call. */
    static boolean movable() {
        return ADDRESS != null;
    }

    /** Points this at {@code address} for the next call that takes it. */
    MovablePointer at(long address) {
        VarHandle h = ADDRESS;
        if (h == null) {
            throw new IllegalStateException("JCuda pointers cannot be moved on this JCuda version");
        }
        h.set(this, address);
        return this;
    }
}
