package dev.rivulet.rio.windows.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code RIO_EXTENSION_FUNCTION_TABLE} (112 bytes, {@code MSWSock.h}): a {@code DWORD cbSize}, 4 bytes of padding,
 * then thirteen function pointers in {@link RioFunction} order. WSAIoctl with
 * {@code SIO_GET_MULTIPLE_EXTENSION_FUNCTION_POINTER} and {@link Guid#WSAID_MULTIPLE_RIO} fills it.
 */
public final class RioExtensionFunctionTable {

    public static final StructLayout LAYOUT = layout();

    private static final VarHandle CB_SIZE = LAYOUT.varHandle(groupElement("cbSize"));
    private static final VarHandle[] FUNCTIONS = functionHandles();

    private RioExtensionFunctionTable() {
    }

    private static StructLayout layout() {
        List<MemoryLayout> members = new ArrayList<>();
        members.add(JAVA_INT.withName("cbSize")); // DWORD
        members.add(MemoryLayout.paddingLayout(4)); // the pointers that follow are 8-byte aligned
        for (RioFunction f : RioFunction.values()) {
            members.add(ADDRESS.withName(f.cName()));
        }
        return MemoryLayout.structLayout(members.toArray(MemoryLayout[]::new)).withName("RIO_EXTENSION_FUNCTION_TABLE");
    }

    private static VarHandle[] functionHandles() {
        RioFunction[] all = RioFunction.values();
        VarHandle[] handles = new VarHandle[all.length];
        for (RioFunction f : all) {
            handles[f.ordinal()] = LAYOUT.varHandle(groupElement(f.cName()));
        }
        return handles;
    }

    public static int cbSize(MemorySegment table) {
        return (int) CB_SIZE.get(table, 0L);
    }

    public static void cbSize(MemorySegment table, int size) {
        CB_SIZE.set(table, 0L, size);
    }

    /** The function pointer stored for {@code function} (NULL if WSAIoctl did not fill it). */
    public static MemorySegment function(MemorySegment table, RioFunction function) {
        return (MemorySegment) FUNCTIONS[function.ordinal()].get(table, 0L);
    }

    /** Byte offset of {@code function}'s slot. */
    public static long offsetOf(RioFunction function) {
        return LAYOUT.byteOffset(groupElement(function.cName()));
    }
}
