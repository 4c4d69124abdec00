package dev.rivulet.faults;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The nftables faults of one namespace, in a table of its own ({@code inet rvf_faults}) with an input and an output
 * chain. Every rule matches only the namespace's veth device and counts what it hits, so {@link #hits()} reports how
 * many packets a fault really took; with random loss a rule ahead of it counts every packet that arrived
 * ({@link #loss()}), so the share dropped can be checked against the rate asked for.
 */
final class Firewall {

    static final String TABLE = "rvf_faults";
    private static final Pattern PACKETS = Pattern.compile("counter packets (\\d+)");
    /** Marks the counting rule, which takes nothing and so is no fault's hit. */
    private static final String ARRIVALS = "rvf-arrivals";

    private final Namespace ns;

    Firewall(Namespace ns) {
        this.ns = ns;
    }

    /** Creates the (empty) table and chains. */
    void install() {
        nftScript("table inet " + TABLE + " {\n"
                + "  chain in { type filter hook input priority -10; policy accept; }\n"
                + "  chain out { type filter hook output priority -10; policy accept; }\n"
                + "}\n");
    }

    /**
     * Drops each packet arriving on the veth with probability {@code percent}/100 ({@code numgen random}, decided per
     * packet, in 0.1 % steps). Applied on both sides it loses that share of every direction: data and ACKs alike.
     */
    void dropRandomly(double percent) {
        long permille = Math.round(percent * 10);
        if (permille < 1 || permille > 1000) {
            throw new IllegalArgumentException("drop percentage out of range: " + percent);
        }
        nft("add", "rule", "inet", TABLE, "in", "iifname", ns.device(), "counter", "comment",
                "\"" + ARRIVALS + "\"");
        nft("add", "rule", "inet", TABLE, "in", "iifname", ns.device(), "numgen", "random", "mod", "1000", "<",
                Long.toString(permille), "counter", "drop");
    }

    /** Answers every TCP segment arriving on the veth with a reset, as a middlebox killing the flows would. */
    void resetTcp() {
        nft("add", "rule", "inet", TABLE, "in", "iifname", ns.device(), "meta", "l4proto", "tcp", "counter",
                "reject", "with", "tcp", "reset");
    }

    /** Cuts the namespace off: everything in or out of the veth is dropped silently (a partition). */
    void dropEverything() {
        nft("add", "rule", "inet", TABLE, "in", "iifname", ns.device(), "counter", "drop");
        nft("add", "rule", "inet", TABLE, "out", "oifname", ns.device(), "counter", "drop");
    }

    /** Removes every rule (the table and chains stay, empty). */
    void clear() {
        nft("flush", "table", "inet", TABLE);
    }

    /** Packets the current rules have matched (dropped or rejected) since they were added. */
    long hits() {
        return count(listing(), false);
    }

    /** What this side's random loss did so far: packets that arrived, and how many of them were dropped. */
    Loss loss() {
        String listing = listing();
        return new Loss(count(listing, true), count(listing, false));
    }

    /** Packets that arrived at a side under random loss, and those its rule dropped. */
    record Loss(long arrived, long dropped) {
        Loss plus(Loss o) {
            return new Loss(arrived + o.arrived, dropped + o.dropped);
        }
    }

    private String listing() {
        return HostCommand.run(ns.exec("nft", "list", "table", "inet", TABLE).toArray(String[]::new));
    }

    /** Sums the counters of the arrivals rule, or of every other rule, one rule per line of the listing. */
    private static long count(String listing, boolean arrivals) {
        long total = 0;
        for (String rule : listing.split("\n")) {
            if (rule.contains(ARRIVALS) != arrivals) {
                continue;
            }
            Matcher m = PACKETS.matcher(rule);
            if (m.find()) {
                total += Long.parseLong(m.group(1));
            }
        }
        return total;
    }

    private void nft(String... args) {
        HostCommand.run(ns.exec(HostCommand.concat(List.of("nft"), args)).toArray(String[]::new));
    }

    private void nftScript(String script) {
        HostCommand.runWithInput(script, ns.exec("nft", "-f", "-").toArray(String[]::new));
    }
}
