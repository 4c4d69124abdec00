package dev.rivulet.samples.bench.security;

import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.engine.AbstractTransport;
import dev.rivulet.rdma.fabric.FabricTransportProvider;
import dev.rivulet.rio.shm.ShmTransportProvider;
import dev.rivulet.rio.uring.UringTransportProvider;
import dev.rivulet.samples.bench.CommandLoop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The listener a {@link StrangerCostCli} measures, alone in its JVM (its heap committed and touched up front, so the
 * resident set moves only with what connections cost): binds, lends every accepted endpoint's {@code receive()} its
 * demand (so that peers get credit to announce messages), and answers {@code rss} with its resident set, the memory
 * its listeners committed ahead of peers' bytes, and what its buffer pool holds.
 *
 * <pre>StrangerCostNode listener uring|fabric|shm [secret]</pre>
 */
public final class StrangerCostNode {

    private StrangerCostNode() {
    }

    static TransportConfig config(boolean secret) {
        TransportConfig c = TransportConfig.defaults().name("listener");
        return secret ? c.option("security.secret", StrangerCostCli.SECRET) : c;
    }

    static Transport open(String transport, TransportConfig config) {
        return switch (transport) {
            case "uring" -> new UringTransportProvider().open(config);
            case "fabric" -> new FabricTransportProvider().open(config.option("fabric.provider", "tcp"));
            case "shm" -> new ShmTransportProvider().open(config);
            default -> throw new IllegalArgumentException("unknown transport " + transport);
        };
    }

    static String bindAddress(String transport) {
        return switch (transport) {
            case "uring" -> "uring://127.0.0.1:0";
            case "fabric" -> "fabric://127.0.0.1:0?provider=tcp";
            default -> "shm://stranger-cost-" + ProcessHandle.current().pid();
        };
    }

    public static void main(String[] args) throws IOException {
        String transport = args[1];
        boolean secret = args.length > 2 && args[2].equals("secret");
        Transport t = open(transport, config(secret));
        Listener l = t.bind(bindAddress(transport)).block();
        l.accepted().subscribe(ep -> ep.receive().subscribe(b -> { }, e -> { }));
        System.out.println("READY " + l.address());
        System.out.flush();
        CommandLoop.serve(command -> command.equals("rss") ? "RESULT rss=" + residentBytes() + " committed="
                + ((AbstractTransport) t).stats().receiveCommitted() + " pool="
                + t.memory().buffers().registeredBytes() : null);
        t.dispose();
    }

    /** VmRSS of this process, in bytes. */
    static long residentBytes() throws IllegalStateException {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read /proc/self/status", e);
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }
}
