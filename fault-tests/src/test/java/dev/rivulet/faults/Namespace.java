package dev.rivulet.faults;

import java.util.ArrayList;
import java.util.List;

/**
 * One network namespace of a {@link NamespacePair}: its name, its end of the veth pair and that end's IPv4 address.
 * Faults on this side are made through {@link #firewall()} (nftables), {@link #shaper()} (tbf) and
 * {@link #linkDown()}/{@link #linkUp()}.
 */
final class Namespace {

    /** TCP's retransmission-timeout floor on the route between the two namespaces (see {@link #tuneRoute()}). */
    static final String RTO_MIN = "10ms";

    private final String name;
    private final String device;
    private final String address;
    private final Firewall firewall;
    private final RateLimiter shaper;

    Namespace(String name, String device, String address) {
        this.name = name;
        this.device = device;
        this.address = address;
        this.firewall = new Firewall(this);
        this.shaper = new RateLimiter(this);
    }

    String name() {
        return name;
    }

    /** This side's veth device. */
    String device() {
        return device;
    }

    /** This side's IPv4 address (no prefix length). */
    String address() {
        return address;
    }

    Firewall firewall() {
        return firewall;
    }

    RateLimiter shaper() {
        return shaper;
    }

    /** {@code ip netns exec <name>} followed by {@code command}. */
    List<String> exec(String... command) {
        List<String> all = new ArrayList<>(List.of("ip", "netns", "exec", name));
        all.addAll(List.of(command));
        return all;
    }

    /** Cuts this side's veth (its peer loses carrier too); connections stay open, packets go nowhere. */
    void linkDown() {
        HostCommand.run("ip", "-n", name, "link", "set", "dev", device, "down");
    }

    /**
     * Brings the veth back. The kernel re-creates the connected route without {@link #RTO_MIN}, so it is set again.
     */
    void linkUp() {
        HostCommand.run("ip", "-n", name, "link", "set", "dev", device, "up");
        tuneRoute();
    }

    /**
     * The connected route to the other side, with TCP's retransmission-timeout floor lowered to {@link #RTO_MIN}.
     * Linux's default floor, 200 ms, is meant for the internet; on this veth the round trip is tens of
     * microseconds. A Rivulet stream of small messages keeps little data in flight (its credits bound it), so a
     * lost tail segment is often recovered by a retransmission timeout rather than by duplicate ACKs, and with the
     * default floor the 10^6-message stream at 5 % loss takes 130 to 160 s instead of 25 to 30 s here. Low-latency
     * LANs lower the floor the same way; the data still takes every recovery path TCP has.
     */
    void tuneRoute() {
        HostCommand.run("ip", "-n", name, "route", "replace", NamespacePair.SUBNET, "dev", device, "proto", "kernel",
                "scope", "link", "src", address, "rto_min", RTO_MIN);
    }

    /** Removes every fault this side has (rules, rate limit) and brings its link up. */
    void heal() {
        firewall.clear();
        shaper.clear();
        linkUp();
    }

    /** TCP segments this namespace's stack retransmitted so far ({@code /proc/net/snmp}, per namespace). */
    long tcpRetransmits() {
        String snmp = HostCommand.run(exec("cat", "/proc/net/snmp").toArray(String[]::new));
        List<String> tcp = snmp.lines().filter(l -> l.startsWith("Tcp:")).toList();
        if (tcp.size() < 2) {
            return -1;
        }
        String[] names = tcp.get(0).split("\\s+");
        String[] values = tcp.get(1).split("\\s+");
        for (int i = 0; i < names.length && i < values.length; i++) {
            if (names[i].equals("RetransSegs")) {
                return Long.parseLong(values[i]);
            }
        }
        return -1;
    }

    /** Ends, with SIGKILL, every process still inside namespace {@code name} (children of a run that is gone). */
    static void killProcessesIn(String name) {
        HostCommand.Result pids = HostCommand.attempt(null, "ip", "netns", "pids", name);
        if (!pids.ok()) {
            return;
        }
        for (String p : pids.output().lines().map(String::strip).filter(s -> !s.isEmpty()).toList()) {
            try {
                ProcessHandle.of(Long.parseLong(p)).ifPresent(ProcessHandle::destroyForcibly);
            } catch (NumberFormatException ignored) {
                // not a pid line
            }
        }
    }

    @Override
    public String toString() {
        return name + "/" + device + "/" + address;
    }
}
