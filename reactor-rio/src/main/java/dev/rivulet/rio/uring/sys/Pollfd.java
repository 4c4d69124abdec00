package dev.rivulet.rio.uring.sys;

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

    private Pollfd() {
    }

    /** Asks for {@code events} on {@code fd} and clears what an earlier poll reported. */
    public static void set(MemorySegment p, int fd, int events) {
        FD.set(p, 0L, fd);
        EVENTS.set(p, 0L, (short) events);
        REVENTS.set(p, 0L, (short) 0);
    }

    public static int revents(MemorySegment p) {
        return Short.toUnsignedInt((short) REVENTS.get(p, 0L));
    }
}
