package dev.rivulet.faults;

import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Two fresh network namespaces joined by a veth pair: {@link #client()} at 10.77.0.1/30 and {@link #server()} at
 * 10.77.0.2/30, each with its loopback up and the route between them tuned for a LAN
 * ({@link Namespace#tuneRoute()}). The addresses exist only inside the two namespaces, so they clash with
 * nothing on the host; the names carry this JVM's pid and a random suffix so concurrent runs and a later sweep
 * ({@link FaultHost#sweepStaleNamespaces()}) can tell whose they are. {@link #close()} deletes both, which also
 * destroys the veth pair.
 */
final class NamespacePair implements AutoCloseable {

    static final String SUBNET = "10.77.0.0/30";

    private final Namespace client;
    private final Namespace server;

    private NamespacePair(Namespace client, Namespace server) {
        this.client = client;
        this.server = server;
    }

    static NamespacePair create() {
        String suffix = HexFormat.of().toHexDigits((short) ThreadLocalRandom.current().nextInt());
        String base = FaultHost.PREFIX + ProcessHandle.current().pid() + "-" + suffix;
        // veth names live inside their namespaces, but must still fit IFNAMSIZ (15 characters)
        Namespace client = new Namespace(base + "-a", "rvf" + suffix + "a", "10.77.0.1");
        Namespace server = new Namespace(base + "-b", "rvf" + suffix + "b", "10.77.0.2");
        NamespacePair pair = new NamespacePair(client, server);
        try {
            HostCommand.run("ip", "netns", "add", client.name());
            HostCommand.run("ip", "netns", "add", server.name());
            HostCommand.run("ip", "link", "add", client.device(), "netns", client.name(), "type", "veth", "peer",
                    "name", server.device(), "netns", server.name());
            for (Namespace ns : new Namespace[]{client, server}) {
                HostCommand.run("ip", "-n", ns.name(), "addr", "add", ns.address() + "/30", "dev", ns.device());
                HostCommand.run("ip", "-n", ns.name(), "link", "set", "dev", ns.device(), "up");
                HostCommand.run("ip", "-n", ns.name(), "link", "set", "dev", "lo", "up");
                ns.tuneRoute();
                ns.firewall().install();
            }
            return pair;
        } catch (RuntimeException e) {
            pair.close();
            throw e;
        }
    }

    Namespace client() {
        return client;
    }

    Namespace server() {
        return server;
    }

    /** Removes every fault on both sides. */
    void heal() {
        client.heal();
        server.heal();
    }

    @Override
    public void close() {
        for (Namespace ns : new Namespace[]{client, server}) {
            Namespace.killProcessesIn(ns.name());
            HostCommand.attempt(null, "ip", "netns", "del", ns.name());
        }
    }

    @Override
    public String toString() {
        return client + " <-> " + server;
    }
}
