package dev.rivulet.core.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/** {@code struct pollfd} (8 bytes): the descriptor, the events asked for, the events that happened. */
public final class Pollfd {

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("fd"),
            JAVA_SHORT.withName("events"),
            JAVA_SHORT.withName("revents")
    ).withName("pollfd");

    private static final VarHandle FD = LAYOUT.varHandle(groupElement("fd"));
    private static final VarHandle EVENTS = LAYOUT.varHandle(groupElement("events"));
    private static final VarHandle REVENTS = LAYOUT.varHandle(groupElement("revents"));

    public static final long SIZE = LAYOUT.byteSize();

    private Pollfd() {
    }

    /** Asks for {@code events} on {@code fd} and clears what an earlier poll reported. */
    public static void set(MemorySegment p, int fd, int events) {
        set(p, 0, fd, events);
    }

    /** As {@link #set(MemorySegment, int, int)}, for element {@code index} of a {@code struct pollfd} array. */
    public static void set(MemorySegment array, long index, int fd, int events) {
        long base = index * SIZE;
        FD.set(array, base, fd);
        EVENTS.set(array, base, (short) events);
        REVENTS.set(array, base, (short) 0);
    }

    public static int revents(MemorySegment p) {
        return revents(p, 0);
    }

    /** The events that happened to element {@code index} of a {@code struct pollfd} array. */
    public static int revents(MemorySegment array, long index) {
        return Short.toUnsignedInt((short) REVENTS.get(array, index * SIZE));
    }
}
