package dev.rivulet.core.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.invoke.MethodHandle;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetSocketAddress;

/**
 * The libc socket calls a TCP transport needs besides its completion mechanism (io_uring does accept, connect,
 * send and receive asynchronously): creating, binding and configuring sockets, and converting their addresses
 * between {@link InetSocketAddress} and {@link SockaddrIn}/{@link SockaddrIn6}. Closing and polling a socket are
 * {@link Descriptors}' calls.
 *
 * <p>These are control-path calls: failures throw {@link ErrnoException}, and small scratch buffers come from a
 * short-lived confined arena per call. Constant values are Linux x86-64/aarch64 (checked by the io_uring ABI test
 * against the headers).
 */
public final class LibcSockets {

    public static final int AF_INET = 2;
    public static final int AF_INET6 = 10;
    public static final int SOCK_STREAM = 1;
    public static final int SOCK_NONBLOCK = 0x800;
    public static final int SOCK_CLOEXEC = 0x80000;
    public static final int IPPROTO_TCP = 6;
    public static final int IPPROTO_IPV6 = 41;

    public static final int SOL_SOCKET = 1;
    public static final int SO_REUSEADDR = 2;
    public static final int SO_ERROR = 4;
    public static final int SO_SNDBUF = 7;
    public static final int SO_RCVBUF = 8;
    public static final int SO_KEEPALIVE = 9;
    public static final int SO_LINGER = 13;
    public static final int SO_REUSEPORT = 15;
    public static final int TCP_NODELAY = 1;
    /** Seconds a connection is idle before the first keepalive probe. */
    public static final int TCP_KEEPIDLE = 4;
    /** Seconds between keepalive probes. */
    public static final int TCP_KEEPINTVL = 5;
    /** Unanswered keepalive probes before the connection is dropped. */
    public static final int TCP_KEEPCNT = 6;
    /** Milliseconds sent data may stay unacknowledged before the kernel drops the connection (ETIMEDOUT). */
    public static final int TCP_USER_TIMEOUT = 18;
    public static final int IPV6_V6ONLY = 26;

    public static final int SHUT_RD = 0;
    public static final int SHUT_WR = 1;
    public static final int SHUT_RDWR = 2;

    public static final int MSG_DONTWAIT = 0x40;
    public static final int MSG_WAITALL = 0x100;
    /** Without it, sending on a connection the peer reset raises SIGPIPE, which would kill the JVM's process. */
    public static final int MSG_NOSIGNAL = 0x4000;

    private static final MethodHandle SOCKET = capturing("socket", JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT);
    private static final MethodHandle BIND = capturing("bind", JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT);
    private static final MethodHandle LISTEN = capturing("listen", JAVA_INT, JAVA_INT, JAVA_INT);
    private static final MethodHandle ACCEPT4 = capturing("accept4", JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT);
    private static final MethodHandle CONNECT = capturing("connect", JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT);
    private static final MethodHandle SETSOCKOPT = capturing("setsockopt",
            JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT);
    private static final MethodHandle GETSOCKOPT = capturing("getsockopt",
            JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS);
    private static final MethodHandle GETSOCKNAME = capturing("getsockname", JAVA_INT, JAVA_INT, ADDRESS, ADDRESS);
    private static final MethodHandle GETPEERNAME = capturing("getpeername", JAVA_INT, JAVA_INT, ADDRESS, ADDRESS);
    private static final MethodHandle SHUTDOWN = capturing("shutdown", JAVA_INT, JAVA_INT, JAVA_INT);
    private static final MethodHandle SEND = capturing("send", JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT);
    private static final MethodHandle RECV = capturing("recv", JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT);

    private LibcSockets() {
    }

    private static MethodHandle capturing(String name, MemoryLayout result, MemoryLayout... args) {
        return Downcalls.capturing(name, FunctionDescriptor.of(result, args));
    }

    // ---- Addresses ------------------------------------------------------------------------------------------

    /**
     * {@code address} as a {@code sockaddr_in} or {@code sockaddr_in6} allocated from {@code allocator}; the
     * segment's size is the {@code socklen_t} to pass along with it.
     */
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

    /** Decodes a {@code sockaddr_in}/{@code sockaddr_in6} (e.g. in a {@link SockaddrStorage}) by its family. */
    public static InetSocketAddress decode(MemorySegment sockaddr) {
        int family = SockaddrStorage.family(sockaddr);
        return switch (family) {
            case AF_INET -> new InetSocketAddress(SockaddrIn.address(sockaddr), SockaddrIn.port(sockaddr));
            case AF_INET6 -> new InetSocketAddress(SockaddrIn6.address(sockaddr), SockaddrIn6.port(sockaddr));
            default -> throw new IllegalArgumentException("not an IP socket address, family " + family);
        };
    }

    /** The address family to create a socket with for {@code address}. */
    public static int family(InetSocketAddress address) {
        return address.getAddress() instanceof Inet4Address ? AF_INET : AF_INET6;
    }

    // ---- Calls ----------------------------------------------------------------------------------------------

    /** {@code socket(domain, type, protocol)}; {@code type} may include {@link #SOCK_NONBLOCK}/{@link #SOCK_CLOEXEC}. */
    public static int socket(int domain, int type, int protocol) {
        MemorySegment state = Downcalls.threadState();
        try {
            return checked("socket", state, (int) SOCKET.invokeExact(state, domain, type, protocol));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** {@code bind(fd, addr, addr.byteSize())}. */
    public static void bind(int fd, MemorySegment sockaddr) {
        MemorySegment state = Downcalls.threadState();
        try {
            checked("bind", state, (int) BIND.invokeExact(state, fd, sockaddr, (int) sockaddr.byteSize()));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    public static void bind(int fd, InetSocketAddress address) {
        try (Arena scratch = Arena.ofConfined()) {
            bind(fd, sockaddr(scratch, address));
        }
    }

    public static void listen(int fd, int backlog) {
        MemorySegment state = Downcalls.threadState();
        try {
            checked("listen", state, (int) LISTEN.invokeExact(state, fd, backlog));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code accept4(fd, addr, addrLen, flags)}: the connected socket. {@code addr}/{@code addrLen} may be
     * {@link MemorySegment#NULL}; else {@code addrLen} is a {@code socklen_t} holding {@code addr}'s size.
     */
    public static int accept4(int fd, MemorySegment addr, MemorySegment addrLen, int flags) {
        MemorySegment state = Downcalls.threadState();
        try {
            return checked("accept4", state, (int) ACCEPT4.invokeExact(state, fd, addr, addrLen, flags));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code connect(fd, addr, addr.byteSize())}. On a non-blocking socket this throws {@code EINPROGRESS}
     * ({@link ErrnoException#errno()}); the transport then waits for writability and reads {@link #SO_ERROR}.
     */
    public static void connect(int fd, MemorySegment sockaddr) {
        MemorySegment state = Downcalls.threadState();
        try {
            checked("connect", state, (int) CONNECT.invokeExact(state, fd, sockaddr, (int) sockaddr.byteSize()));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    public static void connect(int fd, InetSocketAddress address) {
        try (Arena scratch = Arena.ofConfined()) {
            connect(fd, sockaddr(scratch, address));
        }
    }

    /** {@code setsockopt} for the int-valued options (TCP_NODELAY, SO_REUSEADDR, SO_SNDBUF, SO_RCVBUF, ...). */
    public static void setsockopt(int fd, int level, int option, int value) {
        MemorySegment state = Downcalls.threadState();
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment v = scratch.allocateFrom(JAVA_INT, value);
            int size = (int) JAVA_INT.byteSize();
            checked("setsockopt", state, (int) SETSOCKOPT.invokeExact(state, fd, level, option, v, size));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** {@code setsockopt} with a struct value (e.g. a {@link Linger}); {@code value}'s size is the option length. */
    public static void setsockopt(int fd, int level, int option, MemorySegment value) {
        MemorySegment state = Downcalls.threadState();
        try {
            checked("setsockopt", state,
                    (int) SETSOCKOPT.invokeExact(state, fd, level, option, value, (int) value.byteSize()));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code SO_LINGER} with a zero timeout: the last close of the socket resets the connection (RST) and drops
     * whatever was not sent, so a peer that broke the protocol learns at once that it is gone.
     */
    public static void lingerZero(int fd) {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment l = scratch.allocate(Linger.LAYOUT);
            Linger.set(l, true, 0);
            setsockopt(fd, SOL_SOCKET, SO_LINGER, l);
        }
    }

    /** {@code getsockopt} for an int-valued option (e.g. {@link #SO_ERROR} after a non-blocking connect). */
    public static int getsockopt(int fd, int level, int option) {
        MemorySegment state = Downcalls.threadState();
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment v = scratch.allocate(JAVA_INT);
            MemorySegment len = scratch.allocateFrom(JAVA_INT, (int) JAVA_INT.byteSize());
            checked("getsockopt", state, (int) GETSOCKOPT.invokeExact(state, fd, level, option, v, len));
            return v.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** {@code getsockname}: the local address (e.g. the port the kernel chose for a bind to port 0). */
    public static InetSocketAddress localAddress(int fd) {
        return name(GETSOCKNAME, "getsockname", fd);
    }

    /** {@code getpeername}: the connected peer's address. */
    public static InetSocketAddress remoteAddress(int fd) {
        return name(GETPEERNAME, "getpeername", fd);
    }

    private static InetSocketAddress name(MethodHandle call, String function, int fd) {
        MemorySegment state = Downcalls.threadState();
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment storage = scratch.allocate(SockaddrStorage.LAYOUT);
            MemorySegment len = scratch.allocateFrom(JAVA_INT, (int) SockaddrStorage.LAYOUT.byteSize());
            checked(function, state, (int) call.invokeExact(state, fd, storage, len));
            return decode(storage);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    public static void shutdown(int fd, int how) {
        MemorySegment state = Downcalls.threadState();
        try {
            checked("shutdown", state, (int) SHUTDOWN.invokeExact(state, fd, how));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code send(fd, buf, buf.byteSize(), flags)}: the bytes the kernel took, or {@code -errno} (a would-block
     * {@code -EAGAIN} is a result here, not a failure).
     */
    public static long send(int fd, MemorySegment buf, int flags) {
        MemorySegment state = Downcalls.threadState();
        long r;
        try {
            r = (long) SEND.invokeExact(state, fd, buf, buf.byteSize(), flags);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        return r >= 0 ? r : -Downcalls.errno(state);
    }

    /** {@code recv(fd, buf, buf.byteSize(), flags)}: bytes received (0 at end of stream), or {@code -errno}. */
    public static long recv(int fd, MemorySegment buf, int flags) {
        MemorySegment state = Downcalls.threadState();
        long r;
        try {
            r = (long) RECV.invokeExact(state, fd, buf, buf.byteSize(), flags);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        return r >= 0 ? r : -Downcalls.errno(state);
    }

    private static int checked(String function, MemorySegment state, int result) {
        if (result == -1) {
            throw new ErrnoException(function, Downcalls.errno(state));
        }
        return result;
    }
}
