package dev.rivulet.rio.windows.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/**
 * {@code WSAPOLLFD} (16 bytes, {@code WinSock2.h}): {@code SOCKET fd; SHORT events; SHORT revents;}, padded to the
 * SOCKET's 8-byte alignment. The event bits are Windows' own ({@link WinsockConstants#POLLRDNORM}, ...).
 */
public final class WsaPollFd {

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("fd"),
            JAVA_SHORT.withName("events"),
            JAVA_SHORT.withName("revents"),
            MemoryLayout.paddingLayout(4)
    ).withName("WSAPOLLFD");

    private static final VarHandle FD = LAYOUT.varHandle(groupElement("fd"));
    private static final VarHandle EVENTS = LAYOUT.varHandle(groupElement("events"));
    private static final VarHandle REVENTS = LAYOUT.varHandle(groupElement("revents"));

    private WsaPollFd() {
    }

    public static void set(MemorySegment p, long socket, int events) {
        FD.set(p, 0L, socket);
        EVENTS.set(p, 0L, (short) events);
        REVENTS.set(p, 0L, (short) 0);
    }

    public static int revents(MemorySegment p) {
        return Short.toUnsignedInt((short) REVENTS.get(p, 0L));
    }
}
