package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct fi_ops_cm} (fi_cm.h): the function table behind {@code fid_ep.cm} (and {@code fid_pep.cm},
 * same offset).
 * Only the slot offsets are used, by the object types' dispatch ({@link Dispatch#function}); the leading
 * {@code size} is what the {@code FI_CHECK_OP}-style guard compares a slot offset against.
 */
final class FiOpsCm {

    /** {@code struct fi_ops_cm}: {@code size_t size} followed by one function pointer per slot. */
    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("size"),
            ADDRESS.withName("setname"),
            ADDRESS.withName("getname"),
            ADDRESS.withName("getpeer"),
            ADDRESS.withName("connect"),
            ADDRESS.withName("listen"),
            ADDRESS.withName("accept"),
            ADDRESS.withName("reject"),
            ADDRESS.withName("shutdown"),
            ADDRESS.withName("join"))
            .withName("fi_ops_cm");

    static final long SETNAME = Downcalls.offset(LAYOUT, "setname");
    static final long GETNAME = Downcalls.offset(LAYOUT, "getname");
    static final long GETPEER = Downcalls.offset(LAYOUT, "getpeer");
    static final long CONNECT = Downcalls.offset(LAYOUT, "connect");
    static final long LISTEN = Downcalls.offset(LAYOUT, "listen");
    static final long ACCEPT = Downcalls.offset(LAYOUT, "accept");
    static final long REJECT = Downcalls.offset(LAYOUT, "reject");
    static final long SHUTDOWN = Downcalls.offset(LAYOUT, "shutdown");
    static final long JOIN = Downcalls.offset(LAYOUT, "join");

    private FiOpsCm() {
    }
}
