package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct fi_ops_av} (fi_domain.h): the function table behind {@code fid_av.ops}.
 * Only the slot offsets are used, by the object types' dispatch ({@link Dispatch#function}); the leading
 * {@code size} is what the {@code FI_CHECK_OP}-style guard compares a slot offset against.
 */
final class FiOpsAv {

    /** {@code struct fi_ops_av}: {@code size_t size} followed by one function pointer per slot. */
    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("size"),
            ADDRESS.withName("insert"),
            ADDRESS.withName("insertsvc"),
            ADDRESS.withName("insertsym"),
            ADDRESS.withName("remove"),
            ADDRESS.withName("lookup"),
            ADDRESS.withName("straddr"),
            ADDRESS.withName("av_set"))
            .withName("fi_ops_av");

    static final long INSERT = Downcalls.offset(LAYOUT, "insert");
    static final long INSERTSVC = Downcalls.offset(LAYOUT, "insertsvc");
    static final long INSERTSYM = Downcalls.offset(LAYOUT, "insertsym");
    static final long REMOVE = Downcalls.offset(LAYOUT, "remove");
    static final long LOOKUP = Downcalls.offset(LAYOUT, "lookup");
    static final long STRADDR = Downcalls.offset(LAYOUT, "straddr");
    static final long AV_SET = Downcalls.offset(LAYOUT, "av_set");

    private FiOpsAv() {
    }
}
