package dev.rivulet.faults;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The nftables faults of one namespace, in a table of its own ({@code inet rvf_faults}) with an input and an output
 * chain. Every rule matches only the namespace's veth device and counts what it hits, so {@link #hits()} reports how
 * many packets a fault really took.
 */
final class Firewall {

    static final String TABLE = "rvf_faults";
    private static final Pattern PACKETS = Pattern.compile("counter packets (\\d+)");

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
        String listing = HostCommand.run(ns.exec("nft", "list", "table", "inet", TABLE).toArray(String[]::new));
        long total = 0;
        Matcher m = PACKETS.matcher(listing);
        while (m.find()) {
            total += Long.parseLong(m.group(1));
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
