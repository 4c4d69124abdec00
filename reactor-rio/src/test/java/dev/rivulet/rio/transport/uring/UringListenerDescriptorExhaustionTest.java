package dev.rivulet.rio.transport.uring;

import dev.rivulet.conformance.Requirements;
import dev.rivulet.conformance.EchoPeer;
import dev.rivulet.conformance.LowDescriptorLimitChild;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.rio.stream.StreamAddress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A listener in a process whose descriptor table runs full (RLIMIT_NOFILE lowered for a child JVM running an
 * {@link EchoPeer}): accept fails with EMFILE while connections pile up, the listener logs it and backs off, and
 * once descriptors are free again it accepts and serves new clients. A listener that stopped at the first accept
 * failure would leave its port open and answer nobody, for good.
 */
@Timeout(180)
class UringListenerDescriptorExhaustionTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int FILE_LIMIT = 256;

    private LowDescriptorLimitChild child;
    private Transport transport;
    private final List<SocketChannel> flood = new ArrayList<>();

    @BeforeAll
    static void requireIoUringAndBash() {
        Requirements.assume(new UringTransportProvider().availability(), "io_uring");
        assumeTrue(LowDescriptorLimitChild.canLowerTheLimit(), "needs /bin/bash to lower the child's file limit");
    }

    @AfterEach
    void stop() throws Exception {
        for (SocketChannel s : flood) {
            s.close();
        }
        if (child != null) {
            child.close();
        }
        if (transport != null) {
            transport.dispose();
        }
    }

    @Test
    void theListenerKeepsAcceptingAfterRunningOutOfDescriptors() throws Exception {
        child = LowDescriptorLimitChild.start(FILE_LIMIT, UringTransportProvider.class, "uring://127.0.0.1:0",
                TIMEOUT);
        transport = new UringTransportProvider().open(TransportConfig.defaults());
        child.echoOnce(transport, "before the flood", TIMEOUT); // the child has loaded everything a connection needs

        // Connections that never say hello, more than the child has descriptors: each admitted one holds a descriptor
        // until its (long) handshake deadline, so accept runs into EMFILE.
        InetSocketAddress target = StreamAddress.parse(UringTransport.SCHEME, child.address());
        for (int i = 0; i < FILE_LIMIT + 64; i++) {
            flood.add(SocketChannel.open(target));
        }
        assertThat(child.sawInOutput("EMFILE", TIMEOUT)).as("the child's listener reports running out of descriptors")
                .isTrue();

        for (SocketChannel s : flood) {
            s.close();
        }
        flood.clear();
        // The silent connections end, their descriptors come back, and the listener, still there, serves again.
        child.echoOnce(transport, "after the flood", TIMEOUT);
        assertThat(child.isAlive()).isTrue();
    }
}
