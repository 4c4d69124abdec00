package dev.rivulet.samples.pingpong;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Prints results as fi_pingpong's {@code show_perf} does, column for column, so that the two sides' outputs can be
 * read side by side: the header once, then one line per size.
 */
final class ResultTable {

    static final String HEADER = String.format(Locale.ROOT, "%-8s%-8s%-9s%-8s%8s %10s%13s%13s",
            "bytes", "#sent", "#ack", "total", "time", "MB/sec", "usec/xfer", "Mxfers/sec");

    private final PrintStream out;
    private boolean headerPrinted;

    ResultTable(PrintStream out) {
        this.out = out;
    }

    /** Prints {@code r}; nothing for a round without iterations, as fi_pingpong. */
    void print(RoundResult r) {
        if (r.iterations() == 0) {
            return;
        }
        if (!headerPrinted) {
            out.println(HEADER);
            headerPrinted = true;
        }
        out.println(line(r));
        out.flush();
    }

    /** One result line: sizes as 64, 1k, 1.5m; counts as 100, 10k; {@code =n} when every message was acked. */
    static String line(RoundResult r) {
        long sent = r.iterations();
        String ack;
        if (sent == r.acked()) {
            ack = "=" + count(r.acked());
        } else if (sent < r.acked()) {
            ack = "-" + count(r.acked() - sent);
        } else {
            ack = "+" + count(sent - r.acked());
        }
        double usec = r.microsPerTransfer();
        return String.format(Locale.ROOT, "%-8s%-8s%-9s%-8s%8.2fs%10.2f%11.2f%11.2f", size(r.size()), count(sent),
                ack, size(r.bytes()), r.nanos() / 1e9, r.megabytesPerSecond(), usec, 1.0 / usec);
    }

    /** fi_pingpong's {@code size_str}: binary magnitudes, one decimal below 10 when it is not zero. */
    static String size(long size) {
        long base;
        String mag;
        if (size >= 1L << 30) {
            base = 1L << 30;
            mag = "g";
        } else if (size >= 1L << 20) {
            base = 1L << 20;
            mag = "m";
        } else if (size >= 1L << 10) {
            base = 1L << 10;
            mag = "k";
        } else {
            base = 1;
            mag = "";
        }
        long fraction = size / base < 10 ? (size % base) * 10 / base : 0;
        return fraction != 0 ? (size / base) + "." + fraction + mag : (size / base) + mag;
    }

    /** fi_pingpong's {@code cnt_str}: decimal magnitudes, truncated. */
    static String count(long n) {
        if (n >= 1_000_000_000) {
            return n / 1_000_000_000 + "b";
        } else if (n >= 1_000_000) {
            return n / 1_000_000 + "m";
        } else if (n >= 1_000) {
            return n / 1_000 + "k";
        }
        return Long.toString(n);
    }
}
