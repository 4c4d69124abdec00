package dev.rivulet.faults;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What the host must offer before any fault scenario runs: Linux, root, and working {@code ip netns}, {@code nft} and
 * {@code tc}. {@link #missing()} names the first thing lacking (the tests turn it into a skip with that reason);
 * {@link #sweepStaleNamespaces()} removes namespaces a killed earlier run left behind.
 */
final class FaultHost {

    /** Every namespace this suite makes starts with this, followed by the pid of the JVM that made it. */
    static final String PREFIX = "rvf-";

    private static final List<String> TOOLS = List.of("ip", "nft", "tc");
    private static volatile Optional<String> missing;

    private FaultHost() {
    }

    /** Why fault scenarios cannot run here, or empty when they can. Probed once per JVM. */
    static synchronized Optional<String> missing() {
        if (missing == null) {
            missing = probe();
        }
        return missing;
    }

    private static Optional<String> probe() {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            return Optional.of("network namespaces need Linux (this is " + System.getProperty("os.name") + ")");
        }
        if (!isRoot()) {
            return Optional.of("making network namespaces needs root (uid 0)");
        }
        for (String tool : TOOLS) {
            if (which(tool).isEmpty()) {
                return Optional.of("'" + tool + "' is not installed (packages iproute2 and nftables)");
            }
        }
        // Root in a container without CAP_SYS_ADMIN or without nf_tables still fails here: try the real thing once.
        String probe = PREFIX + ProcessHandle.current().pid() + "-probe";
        HostCommand.Result add = HostCommand.attempt(null, "ip", "netns", "add", probe);
        if (!add.ok()) {
            return Optional.of("'ip netns add' does not work here: " + add.output().strip());
        }
        try {
            HostCommand.Result nft = HostCommand.attempt("table inet rvf_probe {\n chain c {\n"
                    + "  type filter hook input priority 0; policy accept;\n"
                    + "  numgen random mod 100 < 1 drop\n  tcp dport 1 reject with tcp reset\n }\n}\n",
                    "ip", "netns", "exec", probe, "nft", "-f", "-");
            if (!nft.ok()) {
                return Optional.of("nftables cannot filter in a namespace here: " + nft.output().strip());
            }
            HostCommand.Result tbf = HostCommand.attempt(null, "tc", "-n", probe, "qdisc", "add", "dev", "lo",
                    "root", "tbf", "rate", "10mbit", "burst", "32kb", "latency", "50ms");
            if (!tbf.ok()) {
                return Optional.of("the tbf qdisc is unavailable here: " + tbf.output().strip());
            }
        } finally {
            HostCommand.attempt(null, "ip", "netns", "del", probe);
        }
        return Optional.empty();
    }

    private static boolean isRoot() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return line.split("\\s+")[1].equals("0");
                }
            }
        } catch (Exception e) {
            return false;
        }
        return false;
    }

    private static Optional<Path> which(String tool) {
        String path = System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/sbin:/usr/bin:/bin";
        for (String dir : path.split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
                return Optional.of(Path.of(dir, tool));
            }
        }
        return Optional.empty();
    }

    /**
     * Deletes {@code rvf-<pid>-*} namespaces whose creating JVM is gone (a run killed before its cleanup), ending
     * the processes still inside them first: they are children of that dead run.
     */
    static void sweepStaleNamespaces() {
        HostCommand.Result list = HostCommand.attempt(null, "ip", "netns", "list");
        if (!list.ok()) {
            return;
        }
        for (String line : list.output().lines().toList()) {
            String name = line.strip().split("\\s+")[0];
            if (!name.startsWith(PREFIX)) {
                continue;
            }
            String[] parts = name.substring(PREFIX.length()).split("-");
            long owner;
            try {
                owner = Long.parseLong(parts[0]);
            } catch (NumberFormatException e) {
                owner = -1;
            }
            if (owner > 0 && ProcessHandle.of(owner).map(ProcessHandle::isAlive).orElse(false)) {
                continue;
            }
            Namespace.killProcessesIn(name);
            HostCommand.attempt(null, "ip", "netns", "del", name);
            System.out.println("[faults] removed stale namespace " + name);
        }
    }
}
