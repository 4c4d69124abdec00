package dev.rivulet.rdma.fabric;

import dev.rivulet.conformance.Requirements;
import dev.rivulet.conformance.EchoPeer;
import dev.rivulet.conformance.LowDescriptorLimitChild;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A libfabric listener in a process whose descriptor table runs full (RLIMIT_NOFILE lowered for a child JVM running
 * an {@link EchoPeer}): silent connections pile up until accept fails with "Too many open files", and everything the
 * accept thread does around it (logging, admission, starting the set-up thread) runs in a process that cannot open
 * anything. Once descriptors are free again the listener must accept and serve new clients; one that stopped at a
 * failure there would leave its port open and answer nobody, for good.
 */
@Timeout(180)
class FabricListenerDescriptorExhaustionTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int FILE_LIMIT = 256;

    private LowDescriptorLimitChild child;
    private Transport transport;
    private final List<Socket> flood = new ArrayList<>();

    @BeforeAll
    static void requireLibfabricAndBash() {
        Requirements.assume(new FabricTransportProvider().availability(), "libfabric");
        assumeTrue(LowDescriptorLimitChild.canLowerTheLimit(), "needs /bin/bash to lower the child's file limit");
    }

    @AfterEach
    void stop() throws Exception {
        for (Socket s : flood) {
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
        child = LowDescriptorLimitChild.start(FILE_LIMIT, FabricTransportProvider.class,
                "fabric://127.0.0.1:0?provider=tcp", TIMEOUT);
        transport = new FabricTransportProvider().open(TransportConfig.defaults().option("fabric.provider", "tcp"));
        child.echoOnce(transport, "before the flood", TIMEOUT); // the child has loaded everything a connection needs

        // Connections that never say hello, more than the child has descriptors: each admitted one holds a descriptor
        // until its (long) handshake deadline, so accept runs into EMFILE.
        // The kernel queues only a backlog's worth of connections a listener has not accepted: once accept fails,
        // further connects time out, which is as far as a flood can go.
        URI u = URI.create(child.address());
        InetSocketAddress target = new InetSocketAddress(u.getHost(), u.getPort());
        for (int i = 0; i < FILE_LIMIT + 64; i++) {
            Socket s = new Socket();
            try {
                s.connect(target, 2_000);
            } catch (SocketTimeoutException backlogFull) {
                s.close();
                break;
            }
            flood.add(s);
        }
        assertThat(child.sawInOutput("Too many open files", TIMEOUT))
                .as("the child's listener reports running out of descriptors").isTrue();

        for (Socket s : flood) {
            s.close();
        }
        flood.clear();
        // The silent connections end, their descriptors come back, and the listener, still there, serves again.
        child.echoOnce(transport, "after the flood", TIMEOUT);
        assertThat(child.isAlive()).isTrue();
    }
}
