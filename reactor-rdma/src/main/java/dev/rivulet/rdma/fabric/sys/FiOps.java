package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct fi_ops} (fabric.h): the function table behind every {@code struct fid}, at {@code fid.ops}.
 * Only the slot offsets are used, by the object types' dispatch ({@link Dispatch#function}); the leading
 * {@code size} is what the {@code FI_CHECK_OP}-style guard compares a slot offset against.
 */
final class FiOps {

    /** {@code struct fi_ops}: {@code size_t size} followed by one function pointer per slot. */
    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("size"),
            ADDRESS.withName("close"),
            ADDRESS.withName("bind"),
            ADDRESS.withName("control"),
            ADDRESS.withName("ops_open"),
            ADDRESS.withName("tostr"),
            ADDRESS.withName("ops_set"))
            .withName("fi_ops");

    static final long CLOSE = Downcalls.offset(LAYOUT, "close");
    static final long BIND = Downcalls.offset(LAYOUT, "bind");
    static final long CONTROL = Downcalls.offset(LAYOUT, "control");
    static final long OPS_OPEN = Downcalls.offset(LAYOUT, "ops_open");
    static final long TOSTR = Downcalls.offset(LAYOUT, "tostr");
    static final long OPS_SET = Downcalls.offset(LAYOUT, "ops_set");

    private FiOps() {
    }
}
