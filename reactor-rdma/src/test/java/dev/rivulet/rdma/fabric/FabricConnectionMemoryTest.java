package dev.rivulet.rdma.fabric;

import dev.rivulet.conformance.Requirements;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.handshake.Handshake;
import dev.rivulet.core.handshake.SocketHandshakeIo;
import dev.rivulet.core.security.SecuritySettings;
import dev.rivulet.core.sys.Libc;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What a connection over libfabric tcp costs outside the Java heap, at the default configuration: resident memory
 * per idle connection, what is left once connections closed, and what names the listener refuses cost. Both ends of
 * every connection live in this JVM, so a connection is two endpoints here.
 *
 * <p>The bounds leave room for a loaded machine (the JIT, thread stacks and the collector also move resident memory)
 * while staying far below what the provider's defaults cost (about 65 MiB per endpoint, kept after close): per
 * endpoint at most {@link #PER_ENDPOINT} (about 5.5 MiB measured), after closing at most {@link #AFTER_CLOSE} above
 * where it started whatever the number of connections (besides what the transports' registered buffer pools keep for
 * reuse), and refused names almost nothing.
 */
@Timeout(180)
class FabricConnectionMemoryTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final int CONNECTIONS = 16;
    private static final int REFUSALS = 60;
    private static final long MIB = 1 << 20;
    private static final long PER_ENDPOINT = 10 * MIB;
    private static final long AFTER_CLOSE = 24 * MIB;
    private static final long REFUSED_TOTAL = 12 * MIB;

    private final List<Transport> transports = new ArrayList<>();
    private final BlockingQueue<Endpoint> accepted = new LinkedBlockingQueue<>();
    private FabricTransport server;
    private FabricTransport client;
    private FabricListener listener;

    @BeforeEach
    void setUp() throws Exception {
        Requirements.assume(new FabricTransportProvider().availability(), "libfabric");
        assumeTrue(Files.isReadable(Path.of("/proc/self/status")), "reads VmRSS from /proc/self/status");
        server = open();
        client = open();
        listener = (FabricListener) server.bind("fabric://127.0.0.1:0?provider=tcp").block(TIMEOUT);
        listener.accepted().subscribe(accepted::add);
        // Warm up what a first connection creates once per process (provider threads, pools, JIT-compiled code).
        for (int i = 0; i < 2; i++) {
            connect().forEach(Endpoint::dispose);
        }
        awaitClosed();
    }

    @AfterEach
    void close() {
        transports.forEach(Transport::dispose);
    }

    private FabricTransport open() {
        FabricTransport t = (FabricTransport) new FabricTransportProvider()
                .open(TransportConfig.defaults().option("fabric.provider", "tcp"));
        transports.add(t);
        return t;
    }

    @Test
    void idleConnectionsCostLittleAndGiveItBackWhenTheyClose() throws Exception {
        long base = baseline();
        long poolsBefore = pools();
        List<Endpoint> held = new ArrayList<>();
        for (int i = 0; i < CONNECTIONS; i++) {
            held.addAll(connect());
        }
        long growth = medianNativeResident() - base;
        long perEndpoint = growth / (2L * CONNECTIONS);
        System.out.printf("fabric tcp: %d idle connections (%d endpoints) hold %d KiB outside the heap, %d KiB per "
                + "endpoint%n", CONNECTIONS, 2 * CONNECTIONS, growth >> 10, perEndpoint >> 10);
        assertThat(perEndpoint).as("resident memory per idle endpoint, outside the heap").isLessThan(PER_ENDPOINT);

        held.forEach(Endpoint::dispose);
        awaitClosed();
        // The transports' registered buffer pools keep the buffers they grew to, for reuse, until the transports
        // close: counted apart from what closing must give back.
        long pooled = pools() - poolsBefore;
        long left = settledNativeResident(base + pooled + AFTER_CLOSE) - base - pooled;
        System.out.printf("fabric tcp: %d KiB left after they closed, besides %d KiB the buffer pools keep%n",
                left >> 10, pooled >> 10);
        assertThat(left).as("resident memory left after the connections closed").isLessThan(AFTER_CLOSE);
    }

    @Test
    void refusedNamesOpenNothingAndCostNothing() throws Exception {
        byte[] elsewhere = FabricConnectBackTest.sockaddr(InetAddress.getByAddress(new byte[]{10, 9, 9, 9}), 4000);
        // A first batch compiles the refusal path (handshake, crypto, exceptions): the JIT's compiler arenas are
        // malloc'd and glibc keeps them once freed, which is the JVM's cost, not the listener's. What is measured is
        // what a second batch keeps, with freed C heap given back before each reading.
        refuse(elsewhere, REFUSALS);
        long base = trimmedBaseline();
        long opened = server.domain().openedCount();
        refuse(elsewhere, REFUSALS);
        assertThat(server.domain().openedCount()).as("endpoints opened for refused names").isEqualTo(opened);
        long growth = settledTrimmedResident(base + REFUSED_TOTAL) - base;
        System.out.printf("fabric tcp: %d refused names cost %d KiB outside the heap%n", REFUSALS, growth >> 10);
        assertThat(growth).as("resident memory after %d refused names", REFUSALS).isLessThan(REFUSED_TOTAL);
    }

    /** Offers the listener {@code count} handshakes naming a host the connection did not come from. */
    private void refuse(byte[] elsewhere, int count) throws Exception {
        URI u = URI.create(listener.address());
        for (int i = 0; i < count; i++) {
            try (Socket s = new Socket(u.getHost(), u.getPort())) {
                Handshake.client(new SocketHandshakeIo(s, System.nanoTime() + TIMEOUT.toNanos()),
                        SecuritySettings.defaults(), Handshake.KIND_FABRIC,
                        Bootstrap.service("tcp", FabricTransport.DEFAULT_EAGER), elsewhere);
                throw new AssertionError("a name of a host the connection did not come from was accepted");
            } catch (TransportException refused) {
                // as it should be
            }
        }
    }

    /** As {@link #baseline()}, with the C heap's free memory given back before each reading. */
    private static long trimmedBaseline() throws Exception {
        long lowest = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            Thread.sleep(200);
            Libc.mallocTrim();
            lowest = Math.min(lowest, nativeResidentBytes());
        }
        return lowest;
    }

    /** As {@link #settledNativeResident}, with the C heap's free memory given back before each reading. */
    private static long settledTrimmedResident(long goal) throws Exception {
        long lowest = Long.MAX_VALUE;
        for (int i = 0; i < 15; i++) {
            Thread.sleep(200);
            Libc.mallocTrim();
            lowest = Math.min(lowest, nativeResidentBytes());
            if (lowest <= goal) {
                break;
            }
        }
        return lowest;
    }

    /** Registered memory the two transports' buffer pools hold. */
    private long pools() {
        return server.memory().buffers().registeredBytes() + client.memory().buffers().registeredBytes();
    }

    /** A connection: the client's endpoint and the one the listener accepted. */
    private List<Endpoint> connect() throws InterruptedException {
        Endpoint c = client.connect(listener.address()).block(TIMEOUT);
        Endpoint a = accepted.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThat(a).as("accepted").isNotNull();
        return List.of(c, a);
    }

    private void awaitClosed() throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (server.domain().heldCount() + client.domain().heldCount() > 0
                || listener.admission().connections() > 0) {
            assertThat(System.nanoTime() < deadline).as("every endpoint closed").isTrue();
            Thread.sleep(10);
        }
    }

    /** Where resident memory outside the heap settles before a measurement: the lowest of a second's readings. */
    private static long baseline() throws Exception {
        long lowest = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            Thread.sleep(200);
            lowest = Math.min(lowest, nativeResidentBytes());
        }
        return lowest;
    }

    /** The median of five readings a little apart. */
    private static long medianNativeResident() throws Exception {
        long[] r = new long[5];
        for (int i = 0; i < r.length; i++) {
            Thread.sleep(100);
            r[i] = nativeResidentBytes();
        }
        java.util.Arrays.sort(r);
        return r[r.length / 2];
    }

    /**
     * Resident memory outside the heap once it settles: freed provider memory goes back to the system shortly
     * after endpoints close ({@link HeapTrim}), and a loaded machine may take a while. Returns as soon as it is at
     * most {@code goal}, else the lowest of several readings over a few seconds.
     */
    private static long settledNativeResident(long goal) throws Exception {
        long lowest = Long.MAX_VALUE;
        for (int i = 0; i < 15; i++) {
            Thread.sleep(200);
            lowest = Math.min(lowest, nativeResidentBytes());
            if (lowest <= goal) {
                break;
            }
        }
        return lowest;
    }

    /** As FabricSoakTest: resident memory less the heap's committed size, after a full collection. */
    private static long nativeResidentBytes() throws Exception {
        System.gc();
        long heap = Runtime.getRuntime().totalMemory();
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D", "")) * 1024 - heap;
            }
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }
}
