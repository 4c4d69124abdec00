package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct fi_ops_fabric} (fabric.h): the function table behind {@code fid_fabric.ops}.
 * Only the slot offsets are used, by the object types' dispatch ({@link Dispatch#function}); the leading
 * {@code size} is what the {@code FI_CHECK_OP}-style guard compares a slot offset against.
 */
final class FiOpsFabric {

    /** {@code struct fi_ops_fabric}: {@code size_t size} followed by one function pointer per slot. */
    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("size"),
            ADDRESS.withName("domain"),
            ADDRESS.withName("passive_ep"),
            ADDRESS.withName("eq_open"),
            ADDRESS.withName("wait_open"),
            ADDRESS.withName("trywait"),
            ADDRESS.withName("domain2"))
            .withName("fi_ops_fabric");

    static final long DOMAIN = Downcalls.offset(LAYOUT, "domain");
    static final long PASSIVE_EP = Downcalls.offset(LAYOUT, "passive_ep");
    static final long EQ_OPEN = Downcalls.offset(LAYOUT, "eq_open");
    static final long WAIT_OPEN = Downcalls.offset(LAYOUT, "wait_open");
    static final long TRYWAIT = Downcalls.offset(LAYOUT, "trywait");
    static final long DOMAIN2 = Downcalls.offset(LAYOUT, "domain2");

    private FiOpsFabric() {
    }
}
