package dev.rivulet.rio.windows.sys;

import static dev.rivulet.rio.windows.sys.WinsockConstants.INVALID_SOCKET;
import static dev.rivulet.rio.windows.sys.WinsockConstants.SIO_GET_MULTIPLE_EXTENSION_FUNCTION_POINTER;
import static dev.rivulet.rio.windows.sys.WinsockConstants.SOCKET_ERROR;
import static dev.rivulet.rio.windows.sys.WinsockConstants.WAIT_FAILED;
import static dev.rivulet.rio.windows.sys.WinsockConstants.WAIT_TIMEOUT;
import static dev.rivulet.rio.windows.sys.WinsockConstants.WINSOCK_VERSION_2_2;
import static dev.rivulet.rio.windows.sys.WinsockConstants.WSA_FLAG_OVERLAPPED;
import static dev.rivulet.rio.windows.sys.WinsockConstants.WSA_FLAG_REGISTERED_IO;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.rivulet.core.spi.Availability;

import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.util.Locale;

/**
 * The Winsock ({@code ws2_32.dll}) and kernel32 side of Registered I/O: WSAStartup, sockets created with
 * {@code WSA_FLAG_REGISTERED_IO}, the WSAIoctl that yields the RIO function table ({@link #rio(long)}), and the
 * two ways to park a poller until a completion queue has work: an event ({@code WSACreateEvent} +
 * {@code WaitForSingleObject}) or an I/O completion port ({@code CreateIoCompletionPort} +
 * {@code GetQueuedCompletionStatus}).
 *
 * <p>Nothing is loaded until {@link #open()}, and {@code open()} refuses to run off Windows, so on Linux this class
 * only reports {@link #availability()} and never touches a library. An instance owns an {@link Arena} that keeps
 * both DLLs loaded; {@link #close()} calls WSACleanup and closes it, after which the {@link RioFunctions} obtained
 * from it must not be used.
 *
 * <p>Handles ({@code HANDLE}, {@code WSAEVENT}, {@code RIO_CQ}, ...) travel as {@link MemorySegment} addresses;
 * {@code SOCKET}, a pointer-sized unsigned integer, as {@code long}.
 */
public final class Ws2_32 implements AutoCloseable {

    private static final Linker LINKER = Linker.nativeLinker();

    private final Arena arena;
    private final MethodHandle wsaStartup;
    private final MethodHandle wsaCleanup;
    private final MethodHandle wsaSocketW;
    private final MethodHandle wsaIoctl;
    private final MethodHandle closesocket;
    private final MethodHandle bind;
    private final MethodHandle listen;
    private final MethodHandle accept;
    private final MethodHandle connect;
    private final MethodHandle setsockopt;
    private final MethodHandle getsockname;
    private final MethodHandle getpeername;
    private final MethodHandle shutdown;
    private final MethodHandle recv;
    private final MethodHandle send;
    private final MethodHandle wsaPoll;
    private final MethodHandle wsaCreateEvent;
    private final MethodHandle wsaSetEvent;
    private final MethodHandle wsaResetEvent;
    private final MethodHandle wsaCloseEvent;
    private final MethodHandle waitForSingleObject;
    private final MethodHandle createIoCompletionPort;
    private final MethodHandle getQueuedCompletionStatus;
    private final MethodHandle postQueuedCompletionStatus;
    private final MethodHandle closeHandle;
    private volatile boolean closed;

    private Ws2_32(Arena arena, SymbolLookup ws2, SymbolLookup kernel32) {
        this.arena = arena;
        this.wsaStartup = bind(ws2, kernel32, Win32Function.WSA_STARTUP);
        this.wsaCleanup = bind(ws2, kernel32, Win32Function.WSA_CLEANUP);
        this.wsaSocketW = bind(ws2, kernel32, Win32Function.WSA_SOCKET_W);
        this.wsaIoctl = bind(ws2, kernel32, Win32Function.WSA_IOCTL);
        this.closesocket = bind(ws2, kernel32, Win32Function.CLOSESOCKET);
        this.bind = bind(ws2, kernel32, Win32Function.BIND);
        this.listen = bind(ws2, kernel32, Win32Function.LISTEN);
        this.accept = bind(ws2, kernel32, Win32Function.ACCEPT);
        this.connect = bind(ws2, kernel32, Win32Function.CONNECT);
        this.setsockopt = bind(ws2, kernel32, Win32Function.SETSOCKOPT);
        this.getsockname = bind(ws2, kernel32, Win32Function.GETSOCKNAME);
        this.getpeername = bind(ws2, kernel32, Win32Function.GETPEERNAME);
        this.shutdown = bind(ws2, kernel32, Win32Function.SHUTDOWN);
        this.recv = bind(ws2, kernel32, Win32Function.RECV);
        this.send = bind(ws2, kernel32, Win32Function.SEND);
        this.wsaPoll = bind(ws2, kernel32, Win32Function.WSA_POLL);
        this.wsaCreateEvent = bind(ws2, kernel32, Win32Function.WSA_CREATE_EVENT);
        this.wsaSetEvent = bind(ws2, kernel32, Win32Function.WSA_SET_EVENT);
        this.wsaResetEvent = bind(ws2, kernel32, Win32Function.WSA_RESET_EVENT);
        this.wsaCloseEvent = bind(ws2, kernel32, Win32Function.WSA_CLOSE_EVENT);
        this.waitForSingleObject = bind(ws2, kernel32, Win32Function.WAIT_FOR_SINGLE_OBJECT);
        this.createIoCompletionPort = bind(ws2, kernel32, Win32Function.CREATE_IO_COMPLETION_PORT);
        this.getQueuedCompletionStatus = bind(ws2, kernel32, Win32Function.GET_QUEUED_COMPLETION_STATUS);
        this.postQueuedCompletionStatus = bind(ws2, kernel32, Win32Function.POST_QUEUED_COMPLETION_STATUS);
        this.closeHandle = bind(ws2, kernel32, Win32Function.CLOSE_HANDLE);
    }

    @SuppressWarnings("restricted") // downcallHandle: the module runs with --enable-native-access
    private static MethodHandle bind(SymbolLookup ws2, SymbolLookup kernel32, Win32Function f) {
        SymbolLookup lookup = f.library().equals("kernel32") ? kernel32 : ws2;
        MemorySegment address = lookup.find(f.cName())
                .orElseThrow(() -> new UnsatisfiedLinkError(f.library() + ".dll has no " + f.cName()));
        return LINKER.downcallHandle(address, f.descriptor(), WinErrors.options(f.errorSource()));
    }

    // ---- Availability and lifecycle --------------------------------------------------------------------------

    /**
     * Whether RIO is usable here. Off Windows the answer comes from the system properties alone ("requires
     * Windows") and nothing is loaded; on Windows it opens Winsock, creates a registered-I/O socket and fetches
     * the function table once.
     */
    public static Availability availability() {
        return AvailabilityHolder.AVAILABILITY;
    }

    private static final class AvailabilityHolder {
        static final Availability AVAILABILITY = check();

        private static Availability check() {
            Availability platform = platform(System.getProperty("os.name", ""), System.getProperty("os.arch", ""));
            if (!platform.available()) {
                return platform;
            }
            try (Ws2_32 ws = open()) {
                long s = ws.registeredIoSocket(WinsockConstants.AF_INET, WinsockConstants.SOCK_STREAM,
                        WinsockConstants.IPPROTO_TCP);
                try {
                    ws.rio(s);
                } finally {
                    ws.closeSocket(s);
                }
                return Availability.yes();
            } catch (WinErrorException | UnsatisfiedLinkError | IllegalCallerException e) {
                return Availability.no("Registered I/O is not available: " + e.getMessage());
            }
        }
    }

    /**
     * The platform half of {@link #availability()}, from {@code os.name}/{@code os.arch} alone: RIO exists on
     * Windows 8 / Server 2012 and later, and these layouts are the 64-bit (LLP64) ones.
     */
    static Availability platform(String osName, String osArch) {
        if (!osName.toLowerCase(Locale.ROOT).startsWith("windows")) {
            return Availability.no("Registered I/O requires Windows (os.name=" + osName + ")");
        }
        if (!(osArch.equals("amd64") || osArch.equals("x86_64") || osArch.equals("aarch64"))) {
            return Availability.no("the RIO binding requires 64-bit Windows (os.arch=" + osArch + ")");
        }
        return Availability.yes();
    }

    /**
     * Loads ws2_32 and kernel32 and calls {@code WSAStartup(2.2)}.
     *
     * @throws UnsupportedOperationException off Windows, with the reason; nothing is loaded then
     */
    @SuppressWarnings("restricted") // libraryLookup, reached only on Windows
    public static Ws2_32 open() {
        Availability platform = platform(System.getProperty("os.name", ""), System.getProperty("os.arch", ""));
        if (!platform.available()) {
            throw new UnsupportedOperationException(platform.reason());
        }
        Arena arena = Arena.ofShared();
        try {
            Ws2_32 ws = new Ws2_32(arena, SymbolLookup.libraryLookup("ws2_32", arena),
                    SymbolLookup.libraryLookup("kernel32", arena));
            ws.startup();
            return ws;
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    private void startup() {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment data = scratch.allocate(WsaData.LAYOUT);
            int rc = (int) wsaStartup.invokeExact(WINSOCK_VERSION_2_2, data);
            if (rc != 0) {
                throw new WinErrorException("WSAStartup", rc);
            }
            if (WsaData.version(data) != WINSOCK_VERSION_2_2) {
                callCleanup();
                throw new WinErrorException("WSAStartup (version " + Integer.toHexString(WsaData.version(data))
                        + " instead of 2.2)", WinsockConstants.WSAEOPNOTSUPP);
            }
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
    }

    /** WSACleanup, then unloads the libraries; idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            callCleanup();
        } finally {
            arena.close();
        }
    }

    private void callCleanup() {
        MemorySegment state = WinErrors.state();
        try {
            // Its only failures (not initialised, network down) leave nothing to undo.
            int rc = (int) wsaCleanup.invokeExact(state);
            assert rc == 0 || rc == SOCKET_ERROR;
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
    }

    void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("Ws2_32 is closed");
        }
    }

    // ---- Sockets ----------------------------------------------------------------------------------------------

    /** {@code WSASocketW(af, type, protocol, NULL, 0, flags)}. */
    public long socket(int af, int type, int protocol, int flags) {
        MemorySegment state = WinErrors.state();
        long s;
        try {
            s = (long) wsaSocketW.invokeExact(state, af, type, protocol, MemorySegment.NULL, 0, flags);
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
        if (s == INVALID_SOCKET) {
            throw new WinErrorException("WSASocketW", WinErrors.wsaError(state));
        }
        return s;
    }

    /** A socket usable with RIO: {@code WSA_FLAG_REGISTERED_IO | WSA_FLAG_OVERLAPPED}. */
    public long registeredIoSocket(int af, int type, int protocol) {
        return socket(af, type, protocol, WSA_FLAG_REGISTERED_IO | WSA_FLAG_OVERLAPPED);
    }

    public void closeSocket(long socket) {
        MemorySegment state = WinErrors.state();
        try {
            check("closesocket", state, (int) closesocket.invokeExact(state, socket));
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
    }

    /** {@code bind(s, addr, addr.byteSize())}; build {@code addr} with {@link #sockaddr}. */
    public void bind(long socket, MemorySegment sockaddr) {
        MemorySegment state = WinErrors.state();
        try {
            check("bind", state, (int) bind.invokeExact(state, socket, sockaddr, (int) sockaddr.byteSize()));
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
    }

    public void listen(long socket, int backlog) {
        MemorySegment state = WinErrors.state();
        try {
            check("listen", state, (int) listen.invokeExact(state, socket, backlog));
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
    }

    /** {@code accept(s, NULL, NULL)}: the accepted socket inherits the listener's flags, REGISTERED_IO included. */
    public long accept(long socket) {
        MemorySegment state = WinErrors.state();
        long s;
        try {
            s = (long) accept.invokeExact(state, socket, MemorySegment.NULL, MemorySegment.NULL);
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
        if (s == INVALID_SOCKET) {
            throw new WinErrorException("accept", WinErrors.wsaError(state));
        }
        return s;
    }

    public void connect(long socket, MemorySegment sockaddr) {
        MemorySegment state = WinErrors.state();
        try {
            check("connect", state, (int) connect.invokeExact(state, socket, sockaddr, (int) sockaddr.byteSize()));
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
    }

    /** {@code setsockopt} for int/BOOL/DWORD options (TCP_NODELAY, SO_SNDBUF, ...). */
    public void setsockopt(long socket, int level, int option, int value) {
        MemorySegment state = WinErrors.state();
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment v = scratch.allocateFrom(JAVA_INT, value);
            int size = (int) JAVA_INT.byteSize();
            check("setsockopt", state, (int) setsockopt.invokeExact(state, socket, level, option, v, size));
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
    }

    /** {@code getsockname}: the local address, e.g. the port chosen for a bind to port 0. */
    public InetSocketAddress localAddress(long socket) {
        return name(getsockname, "getsockname", socket);
    }

    /** {@code getpeername}: the connected peer's address. */
    public InetSocketAddress remoteAddress(long socket) {
        return name(getpeername, "getpeername", socket);
    }

    private static InetSocketAddress name(MethodHandle call, String function, long socket) {
        MemorySegment state = WinErrors.state();
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment storage = scratch.allocate(SockaddrIn6.LAYOUT.byteSize(), 8);
            MemorySegment len = scratch.allocateFrom(JAVA_INT, (int) storage.byteSize());
            check(function, state, (int) call.invokeExact(state, socket, storage, len));
            return decode(storage);
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
    }

    public void shutdown(long socket, int how) {
        MemorySegment state = WinErrors.state();
        try {
            check("shutdown", state, (int) shutdown.invokeExact(state, socket, how));
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
    }

    /** {@code recv(s, buf, buf.byteSize(), flags)}: bytes received, 0 at end of stream. */
    public int recv(long socket, MemorySegment buf, int flags) {
        MemorySegment state = WinErrors.state();
        try {
            return check("recv", state, (int) recv.invokeExact(state, socket, buf, (int) buf.byteSize(), flags));
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
    }

    /** {@code send(s, buf, buf.byteSize(), flags)}: bytes the stack took. */
    public int send(long socket, MemorySegment buf, int flags) {
        MemorySegment state = WinErrors.state();
        try {
            return check("send", state, (int) send.invokeExact(state, socket, buf, (int) buf.byteSize(), flags));
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
    }

    /**
     * {@code WSAPoll} on one socket ({@code pollfd} a {@link WsaPollFd} the caller owns) for at most
     * {@code timeoutMillis}: the events that happened, 0 when the time ran out.
     */
    public int poll(MemorySegment pollfd, long socket, int events, int timeoutMillis) {
        WsaPollFd.set(pollfd, socket, events);
        MemorySegment state = WinErrors.state();
        try {
            int r = check("WSAPoll", state, (int) wsaPoll.invokeExact(state, pollfd, 1, timeoutMillis));
            return r == 0 ? 0 : WsaPollFd.revents(pollfd);
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
    }

    /** {@code address} as a Windows {@code SOCKADDR_IN}/{@code SOCKADDR_IN6}, sized to its {@code namelen}. */
    public static MemorySegment sockaddr(SegmentAllocator allocator, InetSocketAddress address) {
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("unresolved address: " + address);
        }
        if (address.getAddress() instanceof Inet4Address v4) {
            MemorySegment s = allocator.allocate(SockaddrIn.LAYOUT);
            SockaddrIn.write(s, v4, address.getPort());
            return s;
        }
        MemorySegment s = allocator.allocate(SockaddrIn6.LAYOUT);
        SockaddrIn6.write(s, (Inet6Address) address.getAddress(), address.getPort());
        return s;
    }

    /** Decodes a Windows {@code SOCKADDR_IN}/{@code SOCKADDR_IN6} by its family. */
    public static InetSocketAddress decode(MemorySegment sockaddr) {
        int family = SockaddrIn.family(sockaddr);
        return switch (family) {
            case WinsockConstants.AF_INET ->
                    new InetSocketAddress(SockaddrIn.address(sockaddr), SockaddrIn.port(sockaddr));
            case WinsockConstants.AF_INET6 ->
                    new InetSocketAddress(SockaddrIn6.address(sockaddr), SockaddrIn6.port(sockaddr));
            default -> throw new IllegalArgumentException("not an IP socket address, family " + family);
        };
    }

    // ---- RIO function table -----------------------------------------------------------------------------------

    /**
     * Fetches the RIO function table through {@code socket} (any socket created with
     * {@code WSA_FLAG_REGISTERED_IO}): WSAIoctl({@code SIO_GET_MULTIPLE_EXTENSION_FUNCTION_POINTER},
     * {@link Guid#WSAID_MULTIPLE_RIO}) into a {@link RioExtensionFunctionTable}. The returned invokers stay valid
     * while this instance is open; the table is the same for every socket, so fetch it once.
     */
    public RioFunctions rio(long socket) {
        ensureOpen();
        MemorySegment state = WinErrors.state();
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment guid = scratch.allocate(Guid.LAYOUT);
            Guid.WSAID_MULTIPLE_RIO.writeTo(guid);
            MemorySegment table = scratch.allocate(RioExtensionFunctionTable.LAYOUT);
            RioExtensionFunctionTable.cbSize(table, (int) table.byteSize());
            MemorySegment bytesReturned = scratch.allocate(JAVA_INT);
            int r = (int) wsaIoctl.invokeExact(state, socket, SIO_GET_MULTIPLE_EXTENSION_FUNCTION_POINTER,
                    guid, (int) guid.byteSize(), table, (int) table.byteSize(), bytesReturned,
                    MemorySegment.NULL, MemorySegment.NULL);
            check("WSAIoctl(SIO_GET_MULTIPLE_EXTENSION_FUNCTION_POINTER)", state, r);
            return new RioFunctions(this, table); // copies the pointers out; the scratch table may go
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
    }

    // ---- Park phase: events -------------------------------------------------------------------------------------

    /** {@code WSACreateEvent}: a manual-reset, non-signalled event for {@link RioNotificationCompletion#setEvent}. */
    public MemorySegment createEvent() {
        MemorySegment state = WinErrors.state();
        MemorySegment event;
        try {
            event = (MemorySegment) wsaCreateEvent.invokeExact(state);
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
        if (event.address() == 0) { // WSA_INVALID_EVENT
            throw new WinErrorException("WSACreateEvent", WinErrors.wsaError(state));
        }
        return event;
    }

    /** {@code WSASetEvent}: wakes a thread waiting on {@code event}, from any thread. */
    public void setEvent(MemorySegment event) {
        callBool(wsaSetEvent, "WSASetEvent", event, Win32Function.ErrorSource.WSA);
    }

    public void resetEvent(MemorySegment event) {
        callBool(wsaResetEvent, "WSAResetEvent", event, Win32Function.ErrorSource.WSA);
    }

    public void closeEvent(MemorySegment event) {
        callBool(wsaCloseEvent, "WSACloseEvent", event, Win32Function.ErrorSource.WSA);
    }

    /**
     * {@code WaitForSingleObject(handle, millis)}: {@link WinsockConstants#WAIT_OBJECT_0} when signalled,
     * {@link WinsockConstants#WAIT_TIMEOUT} on timeout ({@link WinsockConstants#INFINITE} waits forever).
     */
    public int waitForSingleObject(MemorySegment handle, int millis) {
        MemorySegment state = WinErrors.state();
        int r;
        try {
            r = (int) waitForSingleObject.invokeExact(state, handle, millis);
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
        if (r == WAIT_FAILED) {
            throw new WinErrorException("WaitForSingleObject", WinErrors.win32Error(state));
        }
        return r;
    }

    // ---- Park phase: I/O completion port ------------------------------------------------------------------------

    /** A new completion port ({@code CreateIoCompletionPort(INVALID_HANDLE_VALUE, NULL, 0, threads)}). */
    public MemorySegment createIoCompletionPort(int concurrentThreads) {
        MemorySegment state = WinErrors.state();
        MemorySegment port;
        try {
            port = (MemorySegment) createIoCompletionPort.invokeExact(state,
                    MemorySegment.ofAddress(WinsockConstants.INVALID_HANDLE_VALUE), MemorySegment.NULL, 0L,
                    concurrentThreads);
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
        if (port.address() == 0) {
            throw new WinErrorException("CreateIoCompletionPort", WinErrors.win32Error(state));
        }
        return port;
    }

    /**
     * {@code GetQueuedCompletionStatus(port, bytes, key, overlapped, millis)}: {@code true} when a packet was
     * dequeued (its values written to the three out-parameters: a DWORD, a ULONG_PTR and an OVERLAPPED pointer),
     * {@code false} on timeout.
     */
    public boolean getQueuedCompletionStatus(MemorySegment port, MemorySegment bytesOut, MemorySegment keyOut,
                                             MemorySegment overlappedOut, int millis) {
        MemorySegment state = WinErrors.state();
        int ok;
        try {
            ok = (int) getQueuedCompletionStatus.invokeExact(state, port, bytesOut, keyOut, overlappedOut, millis);
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
        if (ok != 0) {
            return true;
        }
        int error = WinErrors.win32Error(state);
        boolean nothingDequeued = overlappedOut.get(ADDRESS, 0).address() == 0;
        if (nothingDequeued && error == WAIT_TIMEOUT) {
            return false;
        }
        throw new WinErrorException("GetQueuedCompletionStatus", error);
    }

    /** {@code PostQueuedCompletionStatus}: wakes a thread parked on {@code port}, from any thread. */
    public void postQueuedCompletionStatus(MemorySegment port, int bytes, long key, MemorySegment overlapped) {
        MemorySegment state = WinErrors.state();
        int ok;
        try {
            ok = (int) postQueuedCompletionStatus.invokeExact(state, port, bytes, key, overlapped);
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
        if (ok == 0) {
            throw new WinErrorException("PostQueuedCompletionStatus", WinErrors.win32Error(state));
        }
    }

    public void closeHandle(MemorySegment handle) {
        callBool(closeHandle, "CloseHandle", handle, Win32Function.ErrorSource.WIN32);
    }

    // ---- Helpers ----------------------------------------------------------------------------------------------

    private static void callBool(MethodHandle h, String name, MemorySegment handle, Win32Function.ErrorSource src) {
        MemorySegment state = WinErrors.state();
        int ok;
        try {
            ok = (int) h.invokeExact(state, handle);
        } catch (Throwable t) {
            throw WinErrors.rethrow(t);
        }
        if (ok == 0) {
            throw WinErrors.failure(name, src, state);
        }
    }

    private static int check(String function, MemorySegment state, int result) {
        if (result == SOCKET_ERROR) {
            throw new WinErrorException(function, WinErrors.wsaError(state));
        }
        return result;
    }
}
