package dev.rivulet.rio.windows.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.FunctionDescriptor;

/**
 * The exported Winsock and kernel32 functions the RIO binding calls (as opposed to the {@link RioFunction}s, which
 * are reached through a function table), each with its DLL, its documented prototype as a
 * {@link FunctionDescriptor}, and where it reports failure. Carriers follow Windows x64 (LLP64): see
 * {@link RioFunction}; {@code WORD} is {@code JAVA_SHORT}, {@code GROUP} an {@code unsigned int}.
 */
public enum Win32Function {

    /** {@code int WSAStartup(WORD wVersionRequested, LPWSADATA)}: returns the error code itself. */
    WSA_STARTUP("ws2_32", "WSAStartup", ErrorSource.RETURN_VALUE, FunctionDescriptor.of(JAVA_INT, JAVA_SHORT, ADDRESS)),
    /** {@code int WSACleanup(void)}. */
    WSA_CLEANUP("ws2_32", "WSACleanup", ErrorSource.WSA, FunctionDescriptor.of(JAVA_INT)),
    /** {@code SOCKET WSASocketW(int af, int type, int protocol, LPWSAPROTOCOL_INFOW, GROUP g, DWORD dwFlags)}. */
    WSA_SOCKET_W("ws2_32", "WSASocketW", ErrorSource.WSA,
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT)),
    /** {@code int WSAIoctl(SOCKET, DWORD dwIoControlCode, LPVOID lpvInBuffer, DWORD cbInBuffer,
     *  LPVOID lpvOutBuffer, DWORD cbOutBuffer, LPDWORD lpcbBytesReturned, LPWSAOVERLAPPED,
     *  LPWSAOVERLAPPED_COMPLETION_ROUTINE)}. */
    WSA_IOCTL("ws2_32", "WSAIoctl", ErrorSource.WSA,
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS,
                    ADDRESS, ADDRESS)),
    /** {@code int closesocket(SOCKET)}. */
    CLOSESOCKET("ws2_32", "closesocket", ErrorSource.WSA, FunctionDescriptor.of(JAVA_INT, JAVA_LONG)),
    /** {@code int bind(SOCKET, const struct sockaddr *name, int namelen)}. */
    BIND("ws2_32", "bind", ErrorSource.WSA, FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, JAVA_INT)),
    /** {@code int listen(SOCKET, int backlog)}. */
    LISTEN("ws2_32", "listen", ErrorSource.WSA, FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT)),
    /** {@code SOCKET accept(SOCKET, struct sockaddr *addr, int *addrlen)}. */
    ACCEPT("ws2_32", "accept", ErrorSource.WSA, FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS)),
    /** {@code int connect(SOCKET, const struct sockaddr *name, int namelen)}. */
    CONNECT("ws2_32", "connect", ErrorSource.WSA, FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, JAVA_INT)),
    /** {@code int setsockopt(SOCKET, int level, int optname, const char *optval, int optlen)}. */
    SETSOCKOPT("ws2_32", "setsockopt", ErrorSource.WSA,
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT)),
    /** {@code int getpeername(SOCKET, struct sockaddr *name, int *namelen)}. */
    GETPEERNAME("ws2_32", "getpeername", ErrorSource.WSA,
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, ADDRESS)),
    /** {@code int getsockname(SOCKET, struct sockaddr *name, int *namelen)}. */
    GETSOCKNAME("ws2_32", "getsockname", ErrorSource.WSA,
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, ADDRESS)),
    /** {@code int recv(SOCKET, char *buf, int len, int flags)}: bytes received, 0 at end of stream. */
    RECV("ws2_32", "recv", ErrorSource.WSA, FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, JAVA_INT, JAVA_INT)),
    /** {@code int send(SOCKET, const char *buf, int len, int flags)}. */
    SEND("ws2_32", "send", ErrorSource.WSA, FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, JAVA_INT, JAVA_INT)),
    /** {@code int WSAPoll(LPWSAPOLLFD fdArray, ULONG fds, INT timeout)}: ready descriptors, 0 on timeout. */
    WSA_POLL("ws2_32", "WSAPoll", ErrorSource.WSA, FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT)),
    /** {@code int shutdown(SOCKET, int how)}. */
    SHUTDOWN("ws2_32", "shutdown", ErrorSource.WSA, FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT)),
    /** {@code WSAEVENT WSACreateEvent(void)}: a manual-reset event, initially non-signalled. */
    WSA_CREATE_EVENT("ws2_32", "WSACreateEvent", ErrorSource.WSA, FunctionDescriptor.of(ADDRESS)),
    /** {@code BOOL WSASetEvent(WSAEVENT)}. */
    WSA_SET_EVENT("ws2_32", "WSASetEvent", ErrorSource.WSA, FunctionDescriptor.of(JAVA_INT, ADDRESS)),
    /** {@code BOOL WSAResetEvent(WSAEVENT)}. */
    WSA_RESET_EVENT("ws2_32", "WSAResetEvent", ErrorSource.WSA, FunctionDescriptor.of(JAVA_INT, ADDRESS)),
    /** {@code BOOL WSACloseEvent(WSAEVENT)}. */
    WSA_CLOSE_EVENT("ws2_32", "WSACloseEvent", ErrorSource.WSA, FunctionDescriptor.of(JAVA_INT, ADDRESS)),
    /** {@code DWORD WaitForSingleObject(HANDLE, DWORD dwMilliseconds)}. */
    WAIT_FOR_SINGLE_OBJECT("kernel32", "WaitForSingleObject", ErrorSource.WIN32,
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT)),
    /** {@code HANDLE CreateIoCompletionPort(HANDLE FileHandle, HANDLE ExistingCompletionPort,
     *  ULONG_PTR CompletionKey, DWORD NumberOfConcurrentThreads)}. */
    CREATE_IO_COMPLETION_PORT("kernel32", "CreateIoCompletionPort", ErrorSource.WIN32,
            FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT)),
    /** {@code BOOL GetQueuedCompletionStatus(HANDLE, LPDWORD lpNumberOfBytesTransferred,
     *  PULONG_PTR lpCompletionKey, LPOVERLAPPED *lpOverlapped, DWORD dwMilliseconds)}. */
    GET_QUEUED_COMPLETION_STATUS("kernel32", "GetQueuedCompletionStatus", ErrorSource.WIN32,
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_INT)),
    /** {@code BOOL PostQueuedCompletionStatus(HANDLE, DWORD dwNumberOfBytesTransferred, ULONG_PTR dwCompletionKey,
     *  LPOVERLAPPED)}: how another thread wakes a poller parked on the port. */
    POST_QUEUED_COMPLETION_STATUS("kernel32", "PostQueuedCompletionStatus", ErrorSource.WIN32,
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG, ADDRESS)),
    /** {@code BOOL CloseHandle(HANDLE)}. */
    CLOSE_HANDLE("kernel32", "CloseHandle", ErrorSource.WIN32, FunctionDescriptor.of(JAVA_INT, ADDRESS));

    /** Where a function reports why it failed. */
    public enum ErrorSource {
        /** The return value is the error code. */
        RETURN_VALUE,
        /** {@code WSAGetLastError()}, captured right after the call. */
        WSA,
        /** {@code GetLastError()}, captured right after the call. */
        WIN32
    }

    private final String library;
    private final String cName;
    private final ErrorSource errorSource;
    private final FunctionDescriptor descriptor;

    Win32Function(String library, String cName, ErrorSource errorSource, FunctionDescriptor descriptor) {
        this.library = library;
        this.cName = cName;
        this.errorSource = errorSource;
        this.descriptor = descriptor;
    }

    /** The DLL exporting it ({@code ws2_32} or {@code kernel32}). */
    public String library() {
        return library;
    }

    public String cName() {
        return cName;
    }

    public ErrorSource errorSource() {
        return errorSource;
    }

    public FunctionDescriptor descriptor() {
        return descriptor;
    }
}
