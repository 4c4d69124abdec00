package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct fi_ops_ep} (fi_endpoint.h): the function table behind {@code fid_ep.ops}.
 * Only the slot offsets are used, by the object types' dispatch ({@link Dispatch#function}); the leading
 * {@code size} is what the {@code FI_CHECK_OP}-style guard compares a slot offset against.
 */
final class FiOpsEp {

    /** {@code struct fi_ops_ep}: {@code size_t size} followed by one function pointer per slot. */
    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("size"),
            ADDRESS.withName("cancel"),
            ADDRESS.withName("getopt"),
            ADDRESS.withName("setopt"),
            ADDRESS.withName("tx_ctx"),
            ADDRESS.withName("rx_ctx"),
            ADDRESS.withName("rx_size_left"),
            ADDRESS.withName("tx_size_left"))
            .withName("fi_ops_ep");

    static final long CANCEL = Downcalls.offset(LAYOUT, "cancel");
    static final long GETOPT = Downcalls.offset(LAYOUT, "getopt");
    static final long SETOPT = Downcalls.offset(LAYOUT, "setopt");
    static final long TX_CTX = Downcalls.offset(LAYOUT, "tx_ctx");
    static final long RX_CTX = Downcalls.offset(LAYOUT, "rx_ctx");
    static final long RX_SIZE_LEFT = Downcalls.offset(LAYOUT, "rx_size_left");
    static final long TX_SIZE_LEFT = Downcalls.offset(LAYOUT, "tx_size_left");

    private FiOpsEp() {
    }
}
