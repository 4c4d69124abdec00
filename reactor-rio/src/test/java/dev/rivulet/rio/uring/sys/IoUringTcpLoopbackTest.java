package dev.rivulet.rio.uring.sys;

import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_CQE_F_MORE;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_CQE_F_NOTIF;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_OP_SEND_ZC;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_SETUP_COOP_TASKRUN;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_SETUP_SINGLE_ISSUER;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_SETUP_SUBMIT_ALL;
import static dev.rivulet.core.sys.LibcSockets.IPPROTO_TCP;
import static dev.rivulet.core.sys.LibcSockets.MSG_NOSIGNAL;
import static dev.rivulet.core.sys.LibcSockets.SOCK_CLOEXEC;
import static dev.rivulet.core.sys.LibcSockets.SOCK_STREAM;
import static dev.rivulet.core.sys.LibcSockets.SOL_SOCKET;
import static dev.rivulet.core.sys.LibcSockets.SO_REUSEADDR;
import static dev.rivulet.core.sys.LibcSockets.TCP_NODELAY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.rivulet.core.sys.Descriptors;
import dev.rivulet.core.sys.Errno;
import dev.rivulet.core.sys.ErrnoException;
import dev.rivulet.core.sys.LibcSockets;
import dev.rivulet.core.sys.SockaddrStorage;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.opentest4j.TestAbortedException;

/**
 * TCP over loopback (IPv4 and IPv6), every step through one ring: ACCEPT and CONNECT, then the client sends a
 * pattern from a registered buffer (SEND_ZC with IORING_RECVSEND_FIXED_BUF where the probe has it, else plain
 * SEND) and the server receives it into a registered buffer with READ_FIXED; the server echoes it back with plain
 * SEND and the client receives it with RECV. Single-threaded, so the ring can be SINGLE_ISSUER.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class IoUringTcpLoopbackTest {

    private static final int SIZE = 256 * 1024;
    private static final Duration LIMIT = Duration.ofSeconds(20);

    private static final long ACCEPT = 1;
    private static final long CONNECT = 2;
    private static final long SEND = 3;
    private static final long RECV = 4;

    private static final int SEND_BUF_INDEX = 0;
    private static final int RECV_BUF_INDEX = 1;

    enum SendMode { SEND_ZC_FIXED, SEND }

    static Stream<Arguments> cases() {
        return Stream.of("127.0.0.1", "::1").flatMap(host ->
                Stream.of(SendMode.values()).map(mode -> Arguments.of(host, mode)));
    }

    @BeforeAll
    static void requireIoUring() {
        assumeTrue(IoUring.availability().available(), IoUring.availability().reason());
    }

    /** Mutable progress of one transfer, updated from the completion handler. */
    private static final class Transfer {
        long sent;
        long received;
        boolean sendInFlight;
        boolean recvInFlight;
        int zcResultsWithMore;
        int zcNotifications;
        int acceptedFd = -1;
        boolean connected;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void registeredBuffersCarryAPatternAcrossLoopbackAndBack(String host, SendMode mode) throws Exception {
        InetAddress loopback = InetAddress.getByName(host);
        int family = LibcSockets.family(new InetSocketAddress(loopback, 0));
        int listenFd = socketOrSkip(family, host);
        int clientFd = LibcSockets.socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        Transfer t = new Transfer();
        try (Arena arena = Arena.ofConfined();
             IoUring ring = IoUring.open(64, 0,
                     IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SUBMIT_ALL)) {
            boolean zcSupported = ring.probe().isSupported(IORING_OP_SEND_ZC);
            System.out.println(host + " " + mode + ": SEND_ZC supported=" + zcSupported);
            Assumptions.assumeTrue(mode != SendMode.SEND_ZC_FIXED || zcSupported, "kernel has no IORING_OP_SEND_ZC");

            LibcSockets.setsockopt(listenFd, SOL_SOCKET, SO_REUSEADDR, 1);
            bindOrSkip(listenFd, new InetSocketAddress(loopback, 0), host);
            LibcSockets.listen(listenFd, 16);
            InetSocketAddress bound = LibcSockets.localAddress(listenFd);
            assertThat(bound.getPort()).isPositive();

            // --- connect and accept through the ring
            MemorySegment peer = arena.allocate(SockaddrStorage.LAYOUT);
            MemorySegment peerLen = arena.allocateFrom(ValueLayout.JAVA_INT, (int) SockaddrStorage.LAYOUT.byteSize());
            MemorySegment target = LibcSockets.sockaddr(arena, bound);
            ring.nextSqe().prepAccept(listenFd, peer, peerLen, SOCK_CLOEXEC).userData(ACCEPT);
            ring.nextSqe().prepConnect(clientFd, target, (int) target.byteSize()).userData(CONNECT);
            Rings.reapUntil(ring, () -> t.acceptedFd >= 0 && t.connected, (ud, res, flags) -> {
                ok(ud == ACCEPT ? "accept" : "connect", res);
                if (ud == ACCEPT) {
                    t.acceptedFd = res;
                } else {
                    t.connected = true;
                }
            }, LIMIT, "accept + connect");
            int serverFd = t.acceptedFd;
            assertThat(LibcSockets.decode(peer)).isEqualTo(LibcSockets.localAddress(clientFd));
            LibcSockets.setsockopt(clientFd, IPPROTO_TCP, TCP_NODELAY, 1);
            LibcSockets.setsockopt(serverFd, IPPROTO_TCP, TCP_NODELAY, 1);

            // --- client -> server from / into registered buffers
            MemorySegment sendBuf = arena.allocate(SIZE, 4096);
            MemorySegment recvBuf = arena.allocate(SIZE, 4096);
            for (int i = 0; i < SIZE; i++) {
                sendBuf.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + 7));
            }
            ring.registerBuffers(sendBuf, recvBuf);
            try {
                boolean zc = mode == SendMode.SEND_ZC_FIXED;
                Rings.drive(ring, () -> postNext(ring, t, zc, clientFd, serverFd, sendBuf, recvBuf, true),
                        () -> t.sent == SIZE && t.received == SIZE && t.zcNotifications == t.zcResultsWithMore,
                        (ud, res, flags) -> onTransferCompletion(t, ud, res, flags), LIMIT, "client -> server");
                assertThat(recvBuf.mismatch(sendBuf)).as("first differing byte").isEqualTo(-1);
                if (zc) {
                    System.out.println(host + ": SEND_ZC result CQEs with F_MORE=" + t.zcResultsWithMore
                            + ", notifications=" + t.zcNotifications);
                    assertThat(t.zcNotifications).as("one F_NOTIF per F_MORE").isEqualTo(t.zcResultsWithMore)
                            .isPositive();
                }
            } finally {
                ring.unregisterBuffers();
            }

            // --- server -> client echo: plain SEND and RECV on unregistered memory
            MemorySegment echo = arena.allocate(SIZE, 4096);
            Transfer back = new Transfer();
            Rings.drive(ring, () -> postNext(ring, back, false, serverFd, clientFd, recvBuf, echo, false),
                    () -> back.sent == SIZE && back.received == SIZE,
                    (ud, res, flags) -> onTransferCompletion(back, ud, res, flags), LIMIT, "server -> client");
            assertThat(echo.mismatch(sendBuf)).as("first differing byte of the echo").isEqualTo(-1);
        } finally {
            if (t.acceptedFd >= 0) {
                Descriptors.closeOrThrow(t.acceptedFd);
            }
            Descriptors.closeOrThrow(clientFd);
            Descriptors.closeOrThrow(listenFd);
        }
    }

    /** Keeps one send and one receive in flight until each side has moved SIZE bytes. */
    private static void postNext(IoUring ring, Transfer t, boolean zc, int fromFd, int toFd,
                                 MemorySegment src, MemorySegment dst, boolean fixed) {
        if (!t.sendInFlight && t.sent < SIZE) {
            MemorySegment rest = src.asSlice(t.sent);
            IoUringSqe sqe = ring.nextSqe();
            if (zc) {
                sqe.prepSendZcFixed(fromFd, rest, MSG_NOSIGNAL, 0, SEND_BUF_INDEX);
            } else {
                sqe.prepSend(fromFd, rest, MSG_NOSIGNAL);
            }
            sqe.userData(SEND);
            t.sendInFlight = true;
        }
        if (!t.recvInFlight && t.received < SIZE) {
            MemorySegment rest = dst.asSlice(t.received);
            IoUringSqe sqe = ring.nextSqe();
            if (fixed) {
                sqe.prepReadFixed(toFd, rest, 0, RECV_BUF_INDEX); // READ_FIXED works on a socket fd
            } else {
                sqe.prepRecv(toFd, rest, 0);
            }
            sqe.userData(RECV);
            t.recvInFlight = true;
        }
    }

    private static void onTransferCompletion(Transfer t, long userData, int res, int flags) {
        if (userData == SEND) {
            if ((flags & IORING_CQE_F_NOTIF) != 0) {
                t.zcNotifications++; // the kernel released the buffer; res carries only usage bits
                return;
            }
            ok("send", res);
            t.sent += res;
            t.sendInFlight = false;
            if ((flags & IORING_CQE_F_MORE) != 0) {
                t.zcResultsWithMore++; // a notification with the same user_data will follow
            }
        } else if (userData == RECV) {
            ok("recv", res);
            if (res == 0) {
                fail("peer closed early after " + t.received + " bytes");
            }
            t.received += res;
            t.recvInFlight = false;
        } else {
            fail("unexpected completion user_data=" + userData + " res=" + res);
        }
    }

    private static void ok(String what, int res) {
        if (res < 0) {
            fail(what + " failed: " + Errno.name(-res) + " (" + Errno.describe(-res) + ")");
        }
    }

    private static int socketOrSkip(int family, String host) {
        try {
            return LibcSockets.socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        } catch (ErrnoException e) {
            if (e.errno() == Errno.EAFNOSUPPORT) {
                throw skipped(host + " unusable here: " + e.getMessage());
            }
            throw e;
        }
    }

    private static void bindOrSkip(int fd, InetSocketAddress address, String host) {
        try {
            LibcSockets.bind(fd, address);
        } catch (ErrnoException e) {
            if (e.errno() == Errno.EADDRNOTAVAIL) {
                throw skipped(host + " is not configured on loopback: " + e.getMessage());
            }
            throw e;
        }
    }

    private static TestAbortedException skipped(String reason) {
        System.out.println("skipped: " + reason);
        return new TestAbortedException(reason);
    }
}
