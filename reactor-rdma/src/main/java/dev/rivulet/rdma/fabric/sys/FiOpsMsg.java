package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct fi_ops_msg} (fi_endpoint.h): the function table behind {@code fid_ep.msg}.
 * Only the slot offsets are used, by the object types' dispatch ({@link Dispatch#function}); the leading
 * {@code size} is what the {@code FI_CHECK_OP}-style guard compares a slot offset against.
 */
final class FiOpsMsg {

    /** {@code struct fi_ops_msg}: {@code size_t size} followed by one function pointer per slot. */
    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("size"),
            ADDRESS.withName("recv"),
            ADDRESS.withName("recvv"),
            ADDRESS.withName("recvmsg"),
            ADDRESS.withName("send"),
            ADDRESS.withName("sendv"),
            ADDRESS.withName("sendmsg"),
            ADDRESS.withName("inject"),
            ADDRESS.withName("senddata"),
            ADDRESS.withName("injectdata"))
            .withName("fi_ops_msg");

    static final long RECV = Downcalls.offset(LAYOUT, "recv");
    static final long RECVV = Downcalls.offset(LAYOUT, "recvv");
    static final long RECVMSG = Downcalls.offset(LAYOUT, "recvmsg");
    static final long SEND = Downcalls.offset(LAYOUT, "send");
    static final long SENDV = Downcalls.offset(LAYOUT, "sendv");
    static final long SENDMSG = Downcalls.offset(LAYOUT, "sendmsg");
    static final long INJECT = Downcalls.offset(LAYOUT, "inject");
    static final long SENDDATA = Downcalls.offset(LAYOUT, "senddata");
    static final long INJECTDATA = Downcalls.offset(LAYOUT, "injectdata");

    private FiOpsMsg() {
    }
}
