package dev.rivulet.rio.uring;

import dev.rivulet.core.sys.Descriptors;
import dev.rivulet.core.sys.LibcSockets;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.channels.SocketChannel;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Which connections send without SEND_ZC because the kernel would copy the pages anyway: those whose peer is on
 * this host ({@link UringTransport#peerOnThisHost}), over real sockets.
 */
class UringPeerOnThisHostTest {

    @Test
    void aLoopbackPeerIsOnThisHost() throws Exception {
        assertThat(acceptedFrom(InetAddress.getLoopbackAddress())).isTrue();
    }

    @Test
    void aPeerAtOneOfTheHostsOwnAddressesIsOnThisHost() throws Exception {
        Optional<InetAddress> own = ownNonLoopbackAddress();
        assumeTrue(own.isPresent(), "the host has a non-loopback IPv4 address");
        assertThat(acceptedFrom(own.get())).isTrue();
    }

    @Test
    void aSocketWithoutPeerCountsAsRemote() {
        int fd = LibcSockets.socket(LibcSockets.AF_INET, LibcSockets.SOCK_STREAM | LibcSockets.SOCK_CLOEXEC, 0);
        try {
            assertThat(UringTransport.peerOnThisHost(fd)).isFalse();
        } finally {
            Descriptors.closeOrThrow(fd);
        }
    }

    /** {@link UringTransport#peerOnThisHost} of the accepted end of a connection to a listener at {@code at}. */
    private static boolean acceptedFrom(InetAddress at) throws Exception {
        int listening = LibcSockets.socket(LibcSockets.family(new InetSocketAddress(at, 0)),
                LibcSockets.SOCK_STREAM | LibcSockets.SOCK_CLOEXEC, 0);
        try {
            LibcSockets.bind(listening, new InetSocketAddress(at, 0));
            LibcSockets.listen(listening, 1);
            try (SocketChannel peer = SocketChannel.open(LibcSockets.localAddress(listening))) {
                int accepted = LibcSockets.accept4(listening, MemorySegment.NULL, MemorySegment.NULL,
                        LibcSockets.SOCK_CLOEXEC);
                try {
                    return UringTransport.peerOnThisHost(accepted);
                } finally {
                    Descriptors.closeOrThrow(accepted);
                }
            }
        } finally {
            Descriptors.closeOrThrow(listening);
        }
    }

    private static Optional<InetAddress> ownNonLoopbackAddress() throws SocketException {
        return NetworkInterface.networkInterfaces()
                .filter(UringPeerOnThisHostTest::up)
                .flatMap(NetworkInterface::inetAddresses)
                .filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress())
                .findFirst();
    }

    private static boolean up(NetworkInterface i) {
        try {
            return i.isUp();
        } catch (SocketException e) {
            return false;
        }
    }
}
