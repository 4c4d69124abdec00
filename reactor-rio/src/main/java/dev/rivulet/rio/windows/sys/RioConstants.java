package dev.rivulet.rio.windows.sys;

/**
 * Registered I/O constants, from the Windows SDK's {@code mswsockdef.h} (RIO types and flags) and
 * {@code MSWSock.h} (notification types). Names are the C names; the layout test checks each value against the
 * documented definitions.
 */
public final class RioConstants {

    /** This request's completion does not fire a pending RIONotify (e.g. sends, when only receives should wake). */
    public static final int RIO_MSG_DONT_NOTIFY = 0x1;
    /** Queue the request without necessarily starting it; a later non-deferred request or COMMIT_ONLY starts it. */
    public static final int RIO_MSG_DEFER = 0x2;
    /** Receive only, not UDP: complete only when the buffer is full, the connection closes, or on failure. */
    public static final int RIO_MSG_WAITALL = 0x4;
    /** Start deferred requests; must be alone: pData NULL, count 0, context NULL. */
    public static final int RIO_MSG_COMMIT_ONLY = 0x8;

    /** {@code RIO_INVALID_BUFFERID}: {@code (RIO_BUFFERID)(ULONG_PTR)0xFFFFFFFF}, a pointer-sized value. */
    public static final long RIO_INVALID_BUFFERID = 0xFFFF_FFFFL;
    /** {@code RIO_INVALID_CQ}: {@code (RIO_CQ)0}. */
    public static final long RIO_INVALID_CQ = 0L;
    /** {@code RIO_INVALID_RQ}: {@code (RIO_RQ)0}. */
    public static final long RIO_INVALID_RQ = 0L;
    public static final int RIO_MAX_CQ_SIZE = 0x8000000;
    /** What RIODequeueCompletion returns when the CQ is corrupt (a ULONG, so -1 as a Java int). */
    public static final int RIO_CORRUPT_CQ = 0xFFFF_FFFF;

    /** {@code RIO_NOTIFICATION_COMPLETION_TYPE}: signal an event handle. */
    public static final int RIO_EVENT_COMPLETION = 1;
    /** {@code RIO_NOTIFICATION_COMPLETION_TYPE}: post to an I/O completion port. */
    public static final int RIO_IOCP_COMPLETION = 2;

    private RioConstants() {
    }
}
