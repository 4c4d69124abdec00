package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct fi_ops_mr} (fi_domain.h): the function table behind {@code fid_domain.mr} (not {@code fid_domain.ops}).
 * Only the slot offsets are used, by the object types' dispatch ({@link Dispatch#function}); the leading
 * {@code size} is what the {@code FI_CHECK_OP}-style guard compares a slot offset against.
 */
final class FiOpsMr {

    /** {@code struct fi_ops_mr}: {@code size_t size} followed by one function pointer per slot. */
    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("size"),
            ADDRESS.withName("reg"),
            ADDRESS.withName("regv"),
            ADDRESS.withName("regattr"))
            .withName("fi_ops_mr");

    static final long REG = Downcalls.offset(LAYOUT, "reg");
    static final long REGV = Downcalls.offset(LAYOUT, "regv");
    static final long REGATTR = Downcalls.offset(LAYOUT, "regattr");

    private FiOpsMr() {
    }
}
