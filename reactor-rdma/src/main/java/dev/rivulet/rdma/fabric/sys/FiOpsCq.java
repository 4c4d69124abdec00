package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct fi_ops_cq} (fi_eq.h): the function table behind {@code fid_cq.ops}.
 * Only the slot offsets are used, by the object types' dispatch ({@link Dispatch#function}); the leading
 * {@code size} is what the {@code FI_CHECK_OP}-style guard compares a slot offset against.
 */
final class FiOpsCq {

    /** {@code struct fi_ops_cq}: {@code size_t size} followed by one function pointer per slot. */
    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("size"),
            ADDRESS.withName("read"),
            ADDRESS.withName("readfrom"),
            ADDRESS.withName("readerr"),
            ADDRESS.withName("sread"),
            ADDRESS.withName("sreadfrom"),
            ADDRESS.withName("signal"),
            ADDRESS.withName("strerror"))
            .withName("fi_ops_cq");

    static final long READ = Downcalls.offset(LAYOUT, "read");
    static final long READFROM = Downcalls.offset(LAYOUT, "readfrom");
    static final long READERR = Downcalls.offset(LAYOUT, "readerr");
    static final long SREAD = Downcalls.offset(LAYOUT, "sread");
    static final long SREADFROM = Downcalls.offset(LAYOUT, "sreadfrom");
    static final long SIGNAL = Downcalls.offset(LAYOUT, "signal");
    static final long STRERROR = Downcalls.offset(LAYOUT, "strerror");

    private FiOpsCq() {
    }
}
