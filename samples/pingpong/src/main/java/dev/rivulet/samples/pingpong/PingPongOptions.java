package dev.rivulet.samples.pingpong;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line, spelled as {@code fi_pingpong}'s so that both sides of a run can be started with the same
 * options: nothing about sizes, iterations or data checks travels between the peers, so they must agree.
 *
 * @param provider      {@code -p}: libfabric provider; {@code tcp} gives {@code tcp;ofi_rxm} for RDM endpoints
 * @param domain        {@code -d}: libfabric domain name (e.g. {@code lo}), or {@code null} for the provider's first
 * @param iterations    {@code -I}: round trips per size (fi_pingpong's default: 10)
 * @param sizes         {@code -S}: one size, the default list or {@code all}
 * @param verifyData    {@code -c}: fill sent payloads with fi_pingpong's pattern and check received ones
 * @param sourcePort    {@code -B}: the server's control port (0: 47592); a client binds its control socket to it
 * @param destPort      {@code -P}: the control port a client connects to (0: 47592)
 * @param serverHost    the positional argument: where the server's control socket is; {@code null} makes a server
 * @param stallTimeout  {@code -T}: how long to wait for the peer at any one step, and how long a client retries a
 *                      refused control connection (fi_pingpong waits forever and does not retry)
 */
public record PingPongOptions(String provider, String domain, int iterations, SizeList sizes, boolean verifyData,
                              int sourcePort, int destPort, String serverHost, Duration stallTimeout) {

    /** fi_pingpong's control port when {@code -B}/{@code -P} are not given. */
    public static final int DEFAULT_CONTROL_PORT = 47592;

    public static final String USAGE = """
            Usage:
              pingpong [OPTIONS]              start server
              pingpong [OPTIONS] <srv_addr>   connect to server
            Options (as fi_pingpong's; run both sides with the same -S, -I and -c):
              -B <src_port>   source control port number (server: 47592, client: auto)
              -P <dst_port>   destination control port number (client: 47592)
              -d <domain>     domain name
              -p <provider>   specific provider name (tcp)
              -e <ep_type>    endpoint type: rdm only (give fi_pingpong -e rdm too)
              -I <number>     number of iterations (10)
              -S <size>       specific transfer size or 'all' (default: 64 256 1k 4k 64k 1m)
              -c              enables data_integrity checks
              -T <seconds>    give up when the peer is silent this long; a client retries a refused
                              control connection this long (60)
              -h              display this help output""";

    /** Whether this side is the server (no server host given). */
    public boolean isServer() {
        return serverHost == null;
    }

    /** The control port the server listens on, or the client connects to. */
    public int controlPort() {
        int p = isServer() ? sourcePort : destPort;
        return p == 0 ? DEFAULT_CONTROL_PORT : p;
    }

    /** A copy with another source port (tests bind servers to a free port). */
    public PingPongOptions withSourcePort(int port) {
        return new PingPongOptions(provider, domain, iterations, sizes, verifyData, port, destPort, serverHost,
                stallTimeout);
    }

    /**
     * Parses {@code args} as getopt would for fi_pingpong's {@code "hd:p:e:I:S:B:P:c"} (values either glued,
     * {@code -I100}, or separate, {@code -I 100}), plus {@code -T}.
     *
     * @throws IllegalArgumentException with a message for the user; {@code "help"} for {@code -h}
     */
    public static PingPongOptions parse(String... args) {
        String provider = "tcp";
        String domain = null;
        int iterations = 10;
        SizeList sizes = SizeList.defaults();
        boolean verify = false;
        int sourcePort = 0;
        int destPort = 0;
        long stallSeconds = 60;
        List<String> positional = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("-") || a.length() < 2) {
                positional.add(a);
                continue;
            }
            char opt = a.charAt(1);
            if (opt == 'h') {
                throw new IllegalArgumentException("help");
            }
            if (opt == 'c') {
                if (a.length() > 2) {
                    throw new IllegalArgumentException("unknown option " + a);
                }
                verify = true;
                continue;
            }
            String value;
            if (a.length() > 2) {
                value = a.substring(2);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                throw new IllegalArgumentException("option -" + opt + " needs a value");
            }
            switch (opt) {
                case 'p' -> provider = value;
                case 'd' -> domain = value;
                case 'e' -> {
                    if (!value.equalsIgnoreCase("rdm")) {
                        throw new IllegalArgumentException("only '-e rdm' is supported, got '" + value + "'");
                    }
                }
                case 'I' -> iterations = (int) number(value, "-I", Integer.MAX_VALUE);
                case 'S' -> sizes = value.equalsIgnoreCase("all") ? SizeList.all()
                        : SizeList.single((int) number(value, "-S", Integer.MAX_VALUE));
                case 'B' -> sourcePort = (int) number(value, "-B", 65535);
                case 'P' -> destPort = (int) number(value, "-P", 65535);
                case 'T' -> stallSeconds = number(value, "-T", Integer.MAX_VALUE);
                default -> throw new IllegalArgumentException("unknown option -" + opt);
            }
        }
        if (positional.size() > 1) {
            throw new IllegalArgumentException("one server address at most, got " + positional);
        }
        if (stallSeconds == 0) {
            throw new IllegalArgumentException("-T must be at least 1 second");
        }
        return new PingPongOptions(provider, domain, iterations, sizes, verify, sourcePort, destPort,
                positional.isEmpty() ? null : positional.getFirst(), Duration.ofSeconds(stallSeconds));
    }

    private static long number(String value, String option, long max) {
        long n;
        try {
            n = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " takes a number, got '" + value + "'");
        }
        if (n < 0 || n > max) {
            throw new IllegalArgumentException(option + " must be between 0 and " + max + ", got " + n);
        }
        return n;
    }
}
