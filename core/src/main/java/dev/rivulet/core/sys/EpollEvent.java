package dev.rivulet.core.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/**
 * {@code struct epoll_event} ({@code <sys/epoll.h>}): the events and the caller's 64-bit data word. On x86-64 the
 * kernel declares it packed (12 bytes, the data word at offset 4), which the layout states with byte alignment 1.
 */
public final class EpollEvent {

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withByteAlignment(1).withName("events"),
            JAVA_LONG.withByteAlignment(1).withName("data")
    ).withName("epoll_event");

    public static final long SIZE = LAYOUT.byteSize();

    private static final VarHandle EVENTS = LAYOUT.varHandle(groupElement("events"));
    private static final VarHandle DATA = LAYOUT.varHandle(groupElement("data"));

    private EpollEvent() {
    }

    /** Sets element {@code index} of an {@code epoll_event} array to {@code events} with {@code data}. */
    public static void set(MemorySegment array, long index, int events, long data) {
        EVENTS.set(array, index * SIZE, events);
        DATA.set(array, index * SIZE, data);
    }

    /** The data word of element {@code index}. */
    public static long data(MemorySegment array, long index) {
        return (long) DATA.get(array, index * SIZE);
    }
}
