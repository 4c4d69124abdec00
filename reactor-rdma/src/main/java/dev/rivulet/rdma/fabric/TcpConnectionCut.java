package dev.rivulet.rdma.fabric;

import dev.rivulet.core.sys.LibcSockets;
import dev.rivulet.rdma.fabric.sys.FiCqDataEntry;
import dev.rivulet.rdma.fabric.sys.FiCqErrEntry;
import dev.rivulet.rdma.fabric.sys.FidCq;
import dev.rivulet.rdma.fabric.sys.Libfabric;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

import static dev.rivulet.rdma.fabric.sys.FiConstants.FI_EAGAIN;
import static dev.rivulet.rdma.fabric.sys.FiConstants.FI_EAVAIL;

/**
 * Ends the TCP connections of a {@code tcp;ofi_rxm} endpoint whose reads may still wait for their answers, before it
 * is closed in libfabric, on the releases whose tcp provider cannot close over a half-received read answer.
 *
 * <p>Up to libfabric 1.17, tcp takes the answer to an {@code fi_read} as its current receive while the entry is still
 * at the head of its read queue. A close (or any other disable of the connection) in that state flushes the entry
 * twice: once from the read queue, then, freed and zeroed, as the current receive, with a NULL context that rxm
 * dereferences in {@code rxm_handle_comp_error}: a SIGSEGV inside {@code fi_close}. That state is what a partition
 * or a dead peer leaves behind mid-answer, and no call of the API leaves it. (Upstream fixed it in 1.18: the entry
 * leaves the queue when its answer starts.) Its receive path, though, ends such a read cleanly: when the socket
 * reports the end of the stream, the read fails once and leaves the queue. So before the close, the endpoint's
 * sockets are shut down and its queue is read until quiet: every read still waiting for its answer then ends on that
 * path, and the close finds none. What the close would have discarded (sends not yet written, reads without an
 * answer) is discarded as before, now as errors read here; the peer sees the connection end as at a close.
 *
 * <p>rxm keeps its connections to itself: they are found among the process's descriptors by their addresses, the
 * ones this endpoint accepted by its own name as local address, the ones it made by the peer's name as remote
 * address. Only the endpoint's progress thread calls this, before the endpoint is closed.
 */
final class TcpConnectionCut {

    private static final Logger log = LoggerFactory.getLogger(TcpConnectionCut.class);
    /** The first libfabric whose tcp provider takes a read answer off its read queue before receiving it. */
    private static final int FIXED_IN = Libfabric.fiVersion(1, 18);
    private static final Path OPEN_DESCRIPTORS = Path.of("/proc/self/fd");
    /** Reads of the queue after the cut: the first one already ends the reads; the rest take rxm's follow-ups. */
    private static final int MAX_READS = 256;
    private static final int QUIET_READS = 2;
    private static final int BATCH = 16;

    private TcpConnectionCut() {
    }

    /** Whether endpoints of {@code provider} must be cut before they are closed on this libfabric. */
    static boolean needed(String provider) {
        return "tcp".equals(provider) && Libfabric.runtimeVersion() < FIXED_IN;
    }

    /**
     * Shuts down the connections between the endpoint named {@code ownName} and the peer named {@code peerName}
     * (null when it never had one), then reads {@code cq} until it stays empty, discarding what it reports.
     */
    static void cut(byte[] ownName, byte @Nullable [] peerName, MemorySegment cq) {
        InetSocketAddress own = address(ownName);
        InetSocketAddress peer = peerName == null ? null : address(peerName);
        int cut = own == null ? 0 : shutDown(own, peer);
        if (cut == 0) {
            return; // no connection, so no read answer on its way
        }
        log.debug("shut down {} connection(s) of {} before closing it with reads outstanding", cut, own);
        readUntilQuiet(cq);
    }

    private static @Nullable InetSocketAddress address(byte[] name) {
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment s = tmp.allocate(Math.max(name.length, 128));
            s.copyFrom(MemorySegment.ofArray(name));
            return LibcSockets.decode(s);
        } catch (IllegalArgumentException e) {
            return null; // not an IP name: not tcp's
        }
    }

    /** Shuts down every socket of the process between the two; returns how many. */
    private static int shutDown(InetSocketAddress own, @Nullable InetSocketAddress peer) {
        int cut = 0;
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(OPEN_DESCRIPTORS)) {
            for (Path fd : fds) {
                int n = descriptor(fd);
                if (n >= 0 && isSocket(fd) && between(n, own, peer)) {
                    try {
                        LibcSockets.shutdown(n, LibcSockets.SHUT_RDWR);
                        cut++;
                    } catch (RuntimeException e) {
                        log.debug("shutdown of fd {} failed", n, e); // already ended by the peer
                    }
                }
            }
        } catch (IOException e) {
            log.debug("cannot list {}; the endpoint closes with its connections open", OPEN_DESCRIPTORS, e);
        }
        return cut;
    }

    private static int descriptor(Path fd) {
        try {
            return Integer.parseInt(fd.getFileName().toString());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static boolean isSocket(Path fd) {
        try {
            return Files.readSymbolicLink(fd).toString().startsWith("socket:");
        } catch (IOException e) {
            return false; // closed meanwhile
        }
    }

    /** Whether socket {@code fd} is a connection the endpoint accepted, or one it made to {@code peer}. */
    private static boolean between(int fd, InetSocketAddress own, @Nullable InetSocketAddress peer) {
        try {
            InetSocketAddress local = LibcSockets.localAddress(fd);
            InetSocketAddress remote = LibcSockets.remoteAddress(fd);
            return local.equals(own) || remote.equals(peer);
        } catch (RuntimeException e) {
            return false; // not connected (a listener), not IP, or closed meanwhile
        }
    }

    private static void readUntilQuiet(MemorySegment cq) {
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment entries = FiCqDataEntry.allocateArray(tmp, BATCH);
            MemorySegment err = FiCqErrEntry.allocate(tmp);
            int quiet = 0;
            for (int i = 0; i < MAX_READS && quiet < QUIET_READS; i++) {
                long n = FidCq.read(cq, entries, BATCH);
                if (n == -FI_EAVAIL) {
                    FidCq.readerr(cq, err, 0);
                    quiet = 0;
                } else if (n == -FI_EAGAIN || n < 0) {
                    quiet++;
                } else {
                    quiet = 0;
                }
            }
        }
    }
}
