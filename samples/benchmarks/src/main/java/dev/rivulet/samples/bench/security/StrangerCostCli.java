package dev.rivulet.samples.bench.security;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.handshake.Handshake;
import dev.rivulet.core.handshake.SocketHandshakeIo;
import dev.rivulet.core.security.SecuritySettings;
import dev.rivulet.rio.stream.FrameHeader;
import dev.rivulet.rio.stream.FrameKind;
import dev.rivulet.rio.stream.StreamLimits;
import dev.rivulet.samples.bench.ChildJvm;
import dev.rivulet.samples.bench.CliArgs;
import dev.rivulet.samples.bench.Options;
import dev.rivulet.samples.bench.Results;

import java.io.Closeable;
import java.io.DataInputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a stranger (anyone who can reach a listener's port, without the shared secret) can cost a Rivulet listener,
 * per transport, with and without a shared secret configured: the listener runs alone in a child JVM
 * ({@link StrangerCostNode}, heap committed up front) and this process plays the strangers.
 *
 * <ul>
 *   <li><b>silent</b>: sockets that connect and say nothing: the listener's resident memory per socket;</li>
 *   <li><b>through the handshake</b> (no secret only; with one a stranger cannot pass): connections that complete
 *       the handshake and then ask for as much as the protocol lets them: on io_uring each announces a message of the
 *       largest size and sends nothing more; on libfabric and shm:// each is an ordinary idle connection (what
 *       an endpoint costs there). Resident memory per connection, and what stays after they all closed;</li>
 *   <li><b>lockout</b>: how long a client that means it takes to connect while {@code --silent} sockets that say
 *       nothing are open, against the same connect on an idle listener.</li>
 * </ul>
 *
 * <pre>StrangerCostCli [--transports uring,fabric,shm] [--connections 100] [--silent 1000] [--report PATH]</pre>
 * Run from the repository root: {@code java --enable-native-access=ALL-UNNAMED -cp
 * samples/benchmarks/target/benchmarks.jar dev.rivulet.samples.bench.security.StrangerCostCli}; docs/security.md
 * shows its latest table.
 */
public final class StrangerCostCli {

    static final String SECRET = "the secret the listener and its clients share";
    private static final int LARGEST = 16 << 20;
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final List<String> transports;
    private final int connections;
    private final int silent;
    private final List<String> rows = new ArrayList<>();

    private StrangerCostCli(Map<String, String> o) {
        this.transports = Arrays.asList(o.getOrDefault("transports", "uring,fabric,shm").split(","));
        this.connections = Integer.parseInt(o.getOrDefault("connections", "100"));
        this.silent = Integer.parseInt(o.getOrDefault("silent", "1000"));
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> o = Options.parse(args, 0);
        StrangerCostCli cli = new StrangerCostCli(o);
        long t0 = System.nanoTime();
        for (String t : cli.transports) {
            cli.measure(t, false);
            cli.measure(t, true);
        }
        String table = cli.table((System.nanoTime() - t0) / 1e9, CliArgs.commandLine(args));
        System.out.println();
        System.out.println(table);
        if (o.containsKey("report")) {
            Path report = Path.of(o.get("report"));
            if (report.getParent() != null) {
                Files.createDirectories(report.getParent());
            }
            Files.writeString(report, table, StandardCharsets.UTF_8);
        }
    }

    private void measure(String transport, boolean secret) throws Exception {
        try (ChildJvm node = ChildJvm.start(StrangerCostNode.class, "listener",
                List.of(transport, secret ? "secret" : "none"), Path.of("."), Map.of(),
                List.of("-Xms256m", "-Xmx256m", "-XX:+AlwaysPreTouch"))) {
            String address = node.ready().substring("READY ".length()).trim();
            Target target = new Target(transport, address);
            Transport client = StrangerCostNode.open(transport, StrangerCostNode.config(secret).name("client"));
            try {
                connectMillis(client, address); // warm-up: classes, pools, the JIT
                long connectIdle = connectMillis(client, address);
                long base = settledRss(node);
                List<Closeable> held = new ArrayList<>();
                for (int i = 0; i < connections; i++) {
                    held.add(target.silent());
                }
                long silentCost = (settledRss(node) - base) / connections;
                closeAll(held);
                String handshaken = "n/a (no secret, no entry)";
                String kept = "";
                if (!secret) {
                    long before = settledRss(node);
                    long poolBefore = pool(node);
                    for (int i = 0; i < connections; i++) {
                        held.add(target.throughHandshake(client));
                    }
                    long cost = (settledRss(node) - before) / connections;
                    closeAll(held);
                    Thread.sleep(2_000);
                    handshaken = kib(cost);
                    kept = mib(settledRss(node) - before) + " (pool: " + mib(pool(node) - poolBefore) + ")";
                }
                for (int i = 0; i < silent; i++) {
                    held.add(target.silent());
                }
                long connectBeside = connectMillis(client, address);
                closeAll(held);
                rows.add(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %d ms (idle listener: %d ms) |",
                        name(transport), secret ? "yes" : "no", kib(silentCost), handshaken, kept, connectBeside,
                        connectIdle));
            } finally {
                client.dispose();
            }
        }
    }

    private static String name(String transport) {
        return switch (transport) {
            case "uring" -> "io_uring";
            case "fabric" -> "libfabric tcp";
            default -> "shm://";
        };
    }

    private static String kib(long bytes) {
        return String.format(Locale.ROOT, "%.0f KiB", Math.max(0, bytes) / 1024.0);
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%+.1f MiB", bytes / (double) Results.MIB);
    }

    /** The median of five connects (each disposed again), in milliseconds. */
    private static long connectMillis(Transport client, String address) {
        long[] took = new long[5];
        for (int i = 0; i < took.length; i++) {
            long start = System.nanoTime();
            Endpoint ep = client.connect(address).block(TIMEOUT);
            took[i] = (System.nanoTime() - start) / 1_000_000;
            ep.dispose();
        }
        Arrays.sort(took);
        return took[took.length / 2];
    }

    /** The listener's resident set once it stopped moving (two readings half a second apart within 1 %). */
    private static long settledRss(ChildJvm node) throws Exception {
        long last = rss(node);
        for (int i = 0; i < 20; i++) {
            Thread.sleep(500);
            long now = rss(node);
            if (Math.abs(now - last) < last / 100) {
                return now;
            }
            last = now;
        }
        return last;
    }

    private static long rss(ChildJvm node) throws IOException {
        return Long.parseLong(Results.parse(node.command("rss", true)).get("rss"));
    }

    /** What the listener's buffer pool holds, registered, for reuse. */
    private static long pool(ChildJvm node) throws IOException {
        return Long.parseLong(Results.parse(node.command("rss", true)).get("pool"));
    }

    private static void closeAll(List<Closeable> held) {
        for (Closeable c : held) {
            try {
                c.close();
            } catch (IOException e) {
                // gone already
            }
        }
        held.clear();
    }

    private String table(double seconds, String commandLine) {
        StringBuilder b = new StringBuilder();
        b.append("StrangerCostCli ").append(commandLine).append(" (").append(String.format(Locale.ROOT, "%.0f",
                seconds)).append(" s): ").append(connections).append(" connections per measurement, ")
                .append(silent).append(" silent sockets beside the client that means it.\n\n");
        b.append("| transport | shared secret | silent socket, per connection | through the handshake, per "
                + "connection | kept after they closed (of it, the buffer pool's) | client connect beside the silent "
                + "sockets, median of 5 |\n");
        b.append("|---|---|---:|---:|---:|---:|\n");
        rows.forEach(r -> b.append(r).append('\n'));
        return b.toString();
    }

    /** How a stranger reaches one listener. */
    private record Target(String transport, String address) {

        Closeable silent() throws IOException {
            if (transport.equals("shm")) {
                SocketChannel s = SocketChannel.open(StandardProtocolFamily.UNIX);
                s.connect(UnixDomainSocketAddress.of(shmSocket(address)));
                return s;
            }
            URI u = URI.create(address);
            Socket s = new Socket();
            s.connect(new InetSocketAddress(u.getHost(), u.getPort()));
            return s;
        }

        Closeable throughHandshake(Transport client) throws IOException {
            if (transport.equals("uring")) {
                return announceLargest(address);
            }
            Endpoint ep = client.connect(address).block(TIMEOUT);
            return ep::dispose;
        }

        /**
         * An io_uring stranger: the handshake with default settings, then, once the listener granted a credit, the
         * 16-byte header of a message of the largest size and nothing more.
         */
        private static Closeable announceLargest(String address) throws IOException {
            URI u = URI.create(address);
            Socket s = new Socket();
            s.connect(new InetSocketAddress(u.getHost(), u.getPort()));
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            Handshake.client(new SocketHandshakeIo(s, deadline), SecuritySettings.defaults(), Handshake.KIND_STREAM,
                    new byte[0], new StreamLimits(LARGEST, 16 << 10).encode());
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] h = new byte[FrameHeader.BYTES];
            MemorySegment hs = MemorySegment.ofArray(h);
            do {
                in.readFully(h);
                in.skipNBytes(FrameHeader.length(hs, 0));
            } while (FrameHeader.kind(hs, 0) != FrameKind.MESSAGE
                    || ControlWord.type(FrameHeader.tag(hs, 0)) != ControlWord.CREDIT);
            MemorySegment announce = MemorySegment.ofArray(new byte[FrameHeader.BYTES]);
            FrameHeader.write(announce, 0, FrameKind.MESSAGE, ControlWord.encode(ControlWord.DATA, 0), LARGEST);
            s.getOutputStream().write(announce.toArray(ValueLayout.JAVA_BYTE));
            return s;
        }

        /** Where an shm:// listener's socket is (docs/shm.md: the socket directory). */
        private static Path shmSocket(String address) throws IOException {
            String name = address.substring("shm://".length());
            String xdg = System.getenv("XDG_RUNTIME_DIR");
            Path dir = xdg != null && !xdg.isBlank() && Files.isDirectory(Path.of(xdg)) ? Path.of(xdg, "rivulet")
                    : Path.of("/tmp", "rivulet-" + Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
            return dir.resolve(name + ".sock");
        }
    }
}
