package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct fi_ops_atomic} (fi_atomic.h): the function table behind {@code fid_ep.atomic}; NULL on
 * endpoints opened without {@code FI_ATOMIC} by some providers.
 * Only the slot offsets are used, by the object types' dispatch ({@link Dispatch#function}); the leading
 * {@code size} is what the {@code FI_CHECK_OP}-style guard compares a slot offset against.
 */
final class FiOpsAtomic {

    /** {@code struct fi_ops_atomic}: {@code size_t size} followed by one function pointer per slot. */
    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("size"),
            ADDRESS.withName("write"),
            ADDRESS.withName("writev"),
            ADDRESS.withName("writemsg"),
            ADDRESS.withName("inject"),
            ADDRESS.withName("readwrite"),
            ADDRESS.withName("readwritev"),
            ADDRESS.withName("readwritemsg"),
            ADDRESS.withName("compwrite"),
            ADDRESS.withName("compwritev"),
            ADDRESS.withName("compwritemsg"),
            ADDRESS.withName("writevalid"),
            ADDRESS.withName("readwritevalid"),
            ADDRESS.withName("compwritevalid"))
            .withName("fi_ops_atomic");

    static final long WRITE = Downcalls.offset(LAYOUT, "write");
    static final long WRITEV = Downcalls.offset(LAYOUT, "writev");
    static final long WRITEMSG = Downcalls.offset(LAYOUT, "writemsg");
    static final long INJECT = Downcalls.offset(LAYOUT, "inject");
    static final long READWRITE = Downcalls.offset(LAYOUT, "readwrite");
    static final long READWRITEV = Downcalls.offset(LAYOUT, "readwritev");
    static final long READWRITEMSG = Downcalls.offset(LAYOUT, "readwritemsg");
    static final long COMPWRITE = Downcalls.offset(LAYOUT, "compwrite");
    static final long COMPWRITEV = Downcalls.offset(LAYOUT, "compwritev");
    static final long COMPWRITEMSG = Downcalls.offset(LAYOUT, "compwritemsg");
    static final long WRITEVALID = Downcalls.offset(LAYOUT, "writevalid");
    static final long READWRITEVALID = Downcalls.offset(LAYOUT, "readwritevalid");
    static final long COMPWRITEVALID = Downcalls.offset(LAYOUT, "compwritevalid");

    private FiOpsAtomic() {
    }
}
