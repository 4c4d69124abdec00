package dev.rivulet.core.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/**
 * {@code struct linger} (8 bytes), the value of {@code SO_LINGER}: with {@code l_onoff = 1, l_linger = 0} the
 * socket's last close discards unsent data and resets the connection (RST) instead of a graceful FIN.
 */
public final class Linger {

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("l_onoff"),
            JAVA_INT.withName("l_linger")
    ).withName("linger");

    private static final VarHandle ONOFF = LAYOUT.varHandle(groupElement("l_onoff"));
    private static final VarHandle LINGER = LAYOUT.varHandle(groupElement("l_linger"));

    private Linger() {
    }

    public static void set(MemorySegment l, boolean on, int seconds) {
        ONOFF.set(l, 0L, on ? 1 : 0);
        LINGER.set(l, 0L, seconds);
    }
}
