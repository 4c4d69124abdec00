package dev.rivulet.rio.windows.sys;

/**
 * Winsock and Win32 constants the RIO binding uses, from the Windows SDK ({@code WinSock2.h}, {@code ws2def.h},
 * {@code ws2ipdef.h}, {@code winerror.h}, {@code WinBase.h}). Several differ from their Linux namesakes
 * ({@code AF_INET6} is 23, {@code SOL_SOCKET} 0xffff, {@code SO_REUSEADDR} 4), which is why this package keeps its
 * own copies instead of sharing the Linux ones.
 */
public final class WinsockConstants {

    /** {@code MAKEWORD(2, 2)}: the Winsock version requested from WSAStartup. */
    public static final short WINSOCK_VERSION_2_2 = 0x0202;

    public static final int WSA_FLAG_OVERLAPPED = 0x01;
    public static final int WSA_FLAG_NO_HANDLE_INHERIT = 0x80;
    /** Required on every socket used with RIO; accepted sockets inherit it from the listener. */
    public static final int WSA_FLAG_REGISTERED_IO = 0x100;

    public static final int IOC_OUT = 0x40000000;
    public static final int IOC_IN = 0x80000000;
    public static final int IOC_WS2 = 0x08000000;
    /** {@code _WSAIORW(IOC_WS2, 6)}. */
    public static final int SIO_GET_EXTENSION_FUNCTION_POINTER = 0xC8000006;
    /** {@code _WSAIORW(IOC_WS2, 36)}: fetch a table of extension functions (RIO) by GUID. */
    public static final int SIO_GET_MULTIPLE_EXTENSION_FUNCTION_POINTER = 0xC8000024;

    public static final int AF_INET = 2;
    public static final int AF_INET6 = 23;
    public static final int SOCK_STREAM = 1;
    public static final int SOCK_DGRAM = 2;
    public static final int IPPROTO_TCP = 6;
    public static final int IPPROTO_UDP = 17;
    public static final int IPPROTO_IPV6 = 41;

    public static final int SOL_SOCKET = 0xFFFF;
    public static final int SO_REUSEADDR = 0x0004;
    /** {@code ~SO_REUSEADDR}: what Windows servers usually want instead of SO_REUSEADDR. */
    public static final int SO_EXCLUSIVEADDRUSE = ~SO_REUSEADDR;
    public static final int SO_SNDBUF = 0x1001;
    public static final int SO_RCVBUF = 0x1002;
    public static final int SO_KEEPALIVE = 0x0008;
    public static final int TCP_NODELAY = 0x0001;
    /** {@code TCP_KEEPALIVE}, alias {@code TCP_KEEPIDLE}: seconds idle before the first probe (Windows 10 1709+). */
    public static final int TCP_KEEPIDLE = 3;
    /** Seconds a retransmission may go unacknowledged before the connection is dropped. */
    public static final int TCP_MAXRT = 5;
    public static final int TCP_KEEPCNT = 16;
    public static final int TCP_KEEPINTVL = 17;

    /** WSAPoll events: Windows' values, not Linux's. */
    public static final int POLLRDNORM = 0x0100;
    public static final int POLLWRNORM = 0x0010;
    public static final int POLLERR = 0x0001;
    public static final int POLLHUP = 0x0002;
    public static final int POLLNVAL = 0x0004;
    /** Windows sockets default to V6ONLY = TRUE, unlike Linux. */
    public static final int IPV6_V6ONLY = 27;

    public static final int SD_RECEIVE = 0;
    public static final int SD_SEND = 1;
    public static final int SD_BOTH = 2;

    /** {@code INVALID_SOCKET}: {@code (SOCKET)(~0)}, all ones in the 64-bit SOCKET. */
    public static final long INVALID_SOCKET = ~0L;
    public static final int SOCKET_ERROR = -1;
    /** {@code INVALID_HANDLE_VALUE}: {@code (HANDLE)(LONG_PTR)-1}. */
    public static final long INVALID_HANDLE_VALUE = -1L;

    public static final int INFINITE = 0xFFFF_FFFF;
    public static final int WAIT_OBJECT_0 = 0;
    public static final int WAIT_TIMEOUT = 258;
    public static final int WAIT_FAILED = 0xFFFF_FFFF;

    public static final int ERROR_INVALID_HANDLE = 6;
    public static final int WSA_OPERATION_ABORTED = 995;
    public static final int WSA_IO_PENDING = 997;
    public static final int WSAEINTR = 10004;
    public static final int WSAEFAULT = 10014;
    public static final int WSAEINVAL = 10022;
    public static final int WSAEWOULDBLOCK = 10035;
    /** RIONotify: a notification is already armed and has not fired yet. */
    public static final int WSAEALREADY = 10037;
    public static final int WSAEOPNOTSUPP = 10045;
    public static final int WSAEADDRINUSE = 10048;
    public static final int WSAECONNRESET = 10054;
    /** RIO: queue full (send/receive) or CQ too small for a new RQ's outstanding requests. */
    public static final int WSAENOBUFS = 10055;
    public static final int WSAECONNREFUSED = 10061;
    public static final int WSANOTINITIALISED = 10093;

    private WinsockConstants() {
    }
}
