package dev.rivulet.faults;

/**
 * A token-bucket rate limit ({@code tbf} qdisc) on the egress of one namespace's veth: slows a transfer down enough
 * that a fault can land in the middle of it. Packets beyond the bucket's queue are dropped, as a slow link would.
 */
final class RateLimiter {

    private final Namespace ns;

    RateLimiter(Namespace ns) {
        this.ns = ns;
    }

    /** Limits egress to {@code rate} (tc syntax, e.g. {@code 40mbit}). */
    void limit(String rate) {
        HostCommand.run("tc", "-n", ns.name(), "qdisc", "replace", "dev", ns.device(), "root", "tbf", "rate", rate,
                "burst", "32kb", "latency", "100ms");
    }

    /** Restores the device's default qdisc; harmless when there was no limit. */
    void clear() {
        if (HostCommand.run("tc", "-n", ns.name(), "qdisc", "show", "dev", ns.device()).contains("tbf")) {
            HostCommand.run("tc", "-n", ns.name(), "qdisc", "del", "dev", ns.device(), "root");
        }
    }
}
