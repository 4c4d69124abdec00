package dev.rivulet.rio.windows.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;

/**
 * The thirteen RIO extension functions, in the order their pointers appear in
 * {@code RIO_EXTENSION_FUNCTION_TABLE} (MSWSock.h), each with its C name and the {@link FunctionDescriptor} of its
 * documented prototype ({@code LPFN_RIO*} typedefs).
 *
 * <p>Carriers follow Windows x64 (LLP64): {@code BOOL}, {@code INT}, {@code ULONG}, {@code DWORD} are 32-bit
 * {@code JAVA_INT}; {@code SOCKET} (a {@code UINT_PTR}) is {@code JAVA_LONG}; handles ({@code RIO_RQ},
 * {@code RIO_CQ}, {@code RIO_BUFFERID}) and pointers are {@code ADDRESS}. {@code PASCAL} ({@code __stdcall}) is
 * ignored on x64, where the one Windows calling convention applies.
 */
public enum RioFunction {

    /** {@code BOOL RIOReceive(RIO_RQ, PRIO_BUF pData, ULONG DataBufferCount, DWORD Flags, PVOID RequestContext)}. */
    RIO_RECEIVE("RIOReceive", true,
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS)),
    /** {@code int RIOReceiveEx(RIO_RQ, PRIO_BUF, ULONG, PRIO_BUF Local, PRIO_BUF Remote, PRIO_BUF Control,
     *  PRIO_BUF pFlags, DWORD Flags, PVOID RequestContext)}. */
    RIO_RECEIVE_EX("RIOReceiveEx", true,
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS,
                    JAVA_INT, ADDRESS)),
    /** {@code BOOL RIOSend(RIO_RQ, PRIO_BUF pData, ULONG DataBufferCount, DWORD Flags, PVOID RequestContext)}. */
    RIO_SEND("RIOSend", true,
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS)),
    /** {@code BOOL RIOSendEx(...)}: the parameters of RIOReceiveEx. */
    RIO_SEND_EX("RIOSendEx", true,
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS,
                    JAVA_INT, ADDRESS)),
    /** {@code VOID RIOCloseCompletionQueue(RIO_CQ)}. */
    RIO_CLOSE_COMPLETION_QUEUE("RIOCloseCompletionQueue", false, FunctionDescriptor.ofVoid(ADDRESS)),
    /** {@code RIO_CQ RIOCreateCompletionQueue(DWORD QueueSize, PRIO_NOTIFICATION_COMPLETION)}. */
    RIO_CREATE_COMPLETION_QUEUE("RIOCreateCompletionQueue", true,
            FunctionDescriptor.of(ADDRESS, JAVA_INT, ADDRESS)),
    /** {@code RIO_RQ RIOCreateRequestQueue(SOCKET, ULONG MaxOutstandingReceive, ULONG MaxReceiveDataBuffers,
     *  ULONG MaxOutstandingSend, ULONG MaxSendDataBuffers, RIO_CQ ReceiveCQ, RIO_CQ SendCQ, PVOID SocketContext)}. */
    RIO_CREATE_REQUEST_QUEUE("RIOCreateRequestQueue", true,
            FunctionDescriptor.of(ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS,
                    ADDRESS)),
    /** {@code ULONG RIODequeueCompletion(RIO_CQ, PRIORESULT Array, ULONG ArraySize)}. */
    RIO_DEQUEUE_COMPLETION("RIODequeueCompletion", false,
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT)),
    /** {@code VOID RIODeregisterBuffer(RIO_BUFFERID)}. */
    RIO_DEREGISTER_BUFFER("RIODeregisterBuffer", false, FunctionDescriptor.ofVoid(ADDRESS)),
    /** {@code INT RIONotify(RIO_CQ)}: returns its error code directly. */
    RIO_NOTIFY("RIONotify", false, FunctionDescriptor.of(JAVA_INT, ADDRESS)),
    /** {@code RIO_BUFFERID RIORegisterBuffer(PCHAR DataBuffer, DWORD DataLength)}. */
    RIO_REGISTER_BUFFER("RIORegisterBuffer", true, FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT)),
    /** {@code BOOL RIOResizeCompletionQueue(RIO_CQ, DWORD QueueSize)}. */
    RIO_RESIZE_COMPLETION_QUEUE("RIOResizeCompletionQueue", true,
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT)),
    /** {@code BOOL RIOResizeRequestQueue(RIO_RQ, DWORD MaxOutstandingReceive, DWORD MaxOutstandingSend)}. */
    RIO_RESIZE_REQUEST_QUEUE("RIOResizeRequestQueue", true,
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));

    private final String cName;
    private final boolean setsLastError;
    private final FunctionDescriptor descriptor;

    RioFunction(String cName, boolean setsLastError, FunctionDescriptor descriptor) {
        this.cName = cName;
        this.setsLastError = setsLastError;
        this.descriptor = descriptor;
    }

    /** The member name in RIO_EXTENSION_FUNCTION_TABLE (also the function's documented name). */
    public String cName() {
        return cName;
    }

    /** Whether failure is reported through WSAGetLastError (captured), rather than the return value alone. */
    public boolean setsLastError() {
        return setsLastError;
    }

    public FunctionDescriptor descriptor() {
        return descriptor;
    }
}
