package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct fi_ops_rma} (fi_rma.h): the function table behind {@code fid_ep.rma}.
 * Only the slot offsets are used, by the object types' dispatch ({@link Dispatch#function}); the leading
 * {@code size} is what the {@code FI_CHECK_OP}-style guard compares a slot offset against.
 */
final class FiOpsRma {

    /** {@code struct fi_ops_rma}: {@code size_t size} followed by one function pointer per slot. */
    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("size"),
            ADDRESS.withName("read"),
            ADDRESS.withName("readv"),
            ADDRESS.withName("readmsg"),
            ADDRESS.withName("write"),
            ADDRESS.withName("writev"),
            ADDRESS.withName("writemsg"),
            ADDRESS.withName("inject"),
            ADDRESS.withName("writedata"),
            ADDRESS.withName("injectdata"))
            .withName("fi_ops_rma");

    static final long READ = Downcalls.offset(LAYOUT, "read");
    static final long READV = Downcalls.offset(LAYOUT, "readv");
    static final long READMSG = Downcalls.offset(LAYOUT, "readmsg");
    static final long WRITE = Downcalls.offset(LAYOUT, "write");
    static final long WRITEV = Downcalls.offset(LAYOUT, "writev");
    static final long WRITEMSG = Downcalls.offset(LAYOUT, "writemsg");
    static final long INJECT = Downcalls.offset(LAYOUT, "inject");
    static final long WRITEDATA = Downcalls.offset(LAYOUT, "writedata");
    static final long INJECTDATA = Downcalls.offset(LAYOUT, "injectdata");

    private FiOpsRma() {
    }
}
