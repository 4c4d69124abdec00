package dev.rivulet.rio.windows.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/**
 * {@code RIO_NOTIFICATION_COMPLETION} (32 bytes, {@code MSWSock.h}): how a completion queue signals, after
 * RIONotify, that it is non-empty. A 4-byte {@code Type}, 4 bytes of padding (the union holds pointers), then an
 * anonymous union of {@code Event} {HANDLE EventHandle; BOOL NotifyReset} and {@code Iocp} {HANDLE IocpHandle;
 * PVOID CompletionKey; PVOID Overlapped}.
 *
 * <p>The structure is read by RIOCreateCompletionQueue; in IOCP mode the {@code OVERLAPPED} it points at must
 * stay valid (one per CQ) for as long as the CQ exists.
 */
public final class RioNotificationCompletion {

    private static final StructLayout EVENT = MemoryLayout.structLayout(
            ADDRESS.withName("EventHandle"),
            JAVA_INT.withName("NotifyReset"), // BOOL
            MemoryLayout.paddingLayout(4)
    ).withName("Event");

    private static final StructLayout IOCP = MemoryLayout.structLayout(
            ADDRESS.withName("IocpHandle"),
            ADDRESS.withName("CompletionKey"),
            ADDRESS.withName("Overlapped")
    ).withName("Iocp");

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("Type"), // RIO_NOTIFICATION_COMPLETION_TYPE (an enum: 4 bytes)
            MemoryLayout.paddingLayout(4),
            MemoryLayout.unionLayout(EVENT, IOCP) // anonymous in C
    ).withName("RIO_NOTIFICATION_COMPLETION");

    private static final int UNION = 2; // member index of the anonymous union

    private static final VarHandle TYPE = LAYOUT.varHandle(groupElement("Type"));
    private static final VarHandle EVENT_HANDLE =
            LAYOUT.varHandle(groupElement(UNION), groupElement("Event"), groupElement("EventHandle"));
    private static final VarHandle NOTIFY_RESET =
            LAYOUT.varHandle(groupElement(UNION), groupElement("Event"), groupElement("NotifyReset"));
    private static final VarHandle IOCP_HANDLE =
            LAYOUT.varHandle(groupElement(UNION), groupElement("Iocp"), groupElement("IocpHandle"));
    private static final VarHandle COMPLETION_KEY =
            LAYOUT.varHandle(groupElement(UNION), groupElement("Iocp"), groupElement("CompletionKey"));
    private static final VarHandle OVERLAPPED =
            LAYOUT.varHandle(groupElement(UNION), groupElement("Iocp"), groupElement("Overlapped"));

    private RioNotificationCompletion() {
    }

    /** Event mode: RIONotify signals {@code event}; {@code notifyReset} makes RIONotify reset it first. */
    public static void setEvent(MemorySegment s, MemorySegment event, boolean notifyReset) {
        s.fill((byte) 0);
        TYPE.set(s, 0L, RioConstants.RIO_EVENT_COMPLETION);
        EVENT_HANDLE.set(s, 0L, event);
        NOTIFY_RESET.set(s, 0L, notifyReset ? 1 : 0);
    }

    /**
     * IOCP mode: the notification arrives from GetQueuedCompletionStatus on {@code port} with
     * {@code completionKey} and the {@code overlapped} pointer (a dedicated {@link Overlapped} for this CQ).
     */
    public static void setIocp(MemorySegment s, MemorySegment port, long completionKey, MemorySegment overlapped) {
        s.fill((byte) 0);
        TYPE.set(s, 0L, RioConstants.RIO_IOCP_COMPLETION);
        IOCP_HANDLE.set(s, 0L, port);
        COMPLETION_KEY.set(s, 0L, MemorySegment.ofAddress(completionKey));
        OVERLAPPED.set(s, 0L, overlapped);
    }

    public static int type(MemorySegment s) {
        return (int) TYPE.get(s, 0L);
    }

    public static MemorySegment eventHandle(MemorySegment s) {
        return (MemorySegment) EVENT_HANDLE.get(s, 0L);
    }

    public static boolean notifyReset(MemorySegment s) {
        return (int) NOTIFY_RESET.get(s, 0L) != 0;
    }

    public static MemorySegment iocpHandle(MemorySegment s) {
        return (MemorySegment) IOCP_HANDLE.get(s, 0L);
    }

    public static long completionKey(MemorySegment s) {
        return ((MemorySegment) COMPLETION_KEY.get(s, 0L)).address();
    }

    public static MemorySegment overlapped(MemorySegment s) {
        return (MemorySegment) OVERLAPPED.get(s, 0L);
    }
}
