package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct fi_ops_domain} (fi_domain.h): the function table behind {@code fid_domain.ops}.
 * Only the slot offsets are used, by the object types' dispatch ({@link Dispatch#function}); the leading
 * {@code size} is what the {@code FI_CHECK_OP}-style guard compares a slot offset against.
 */
final class FiOpsDomain {

    /** {@code struct fi_ops_domain}: {@code size_t size} followed by one function pointer per slot. */
    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("size"),
            ADDRESS.withName("av_open"),
            ADDRESS.withName("cq_open"),
            ADDRESS.withName("endpoint"),
            ADDRESS.withName("scalable_ep"),
            ADDRESS.withName("cntr_open"),
            ADDRESS.withName("poll_open"),
            ADDRESS.withName("stx_ctx"),
            ADDRESS.withName("srx_ctx"),
            ADDRESS.withName("query_atomic"),
            ADDRESS.withName("query_collective"),
            ADDRESS.withName("endpoint2"))
            .withName("fi_ops_domain");

    static final long AV_OPEN = Downcalls.offset(LAYOUT, "av_open");
    static final long CQ_OPEN = Downcalls.offset(LAYOUT, "cq_open");
    static final long ENDPOINT = Downcalls.offset(LAYOUT, "endpoint");
    static final long SCALABLE_EP = Downcalls.offset(LAYOUT, "scalable_ep");
    static final long CNTR_OPEN = Downcalls.offset(LAYOUT, "cntr_open");
    static final long POLL_OPEN = Downcalls.offset(LAYOUT, "poll_open");
    static final long STX_CTX = Downcalls.offset(LAYOUT, "stx_ctx");
    static final long SRX_CTX = Downcalls.offset(LAYOUT, "srx_ctx");
    static final long QUERY_ATOMIC = Downcalls.offset(LAYOUT, "query_atomic");
    static final long QUERY_COLLECTIVE = Downcalls.offset(LAYOUT, "query_collective");
    static final long ENDPOINT2 = Downcalls.offset(LAYOUT, "endpoint2");

    private FiOpsDomain() {
    }
}
