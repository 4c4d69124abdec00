package dev.rivulet.samples.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * The stdin side of a benchmark node's protocol with {@link ChildJvm}: one answer line per command line, so that the
 * parent can read the answer of each command it sends. Both bench nodes speak it; only their measurements differ.
 */
public final class CommandLoop {

    /** A node's measurements: "MODE SIZE COUNT" to one "RESULT ..." line; throws for a mode it does not know. */
    @FunctionalInterface
    public interface Measurements {
        String run(String mode, int size, long count) throws Exception;
    }

    private CommandLoop() {
    }

    /** The server's loop: "hot" / "cold" switch the idle strategy; returns when the parent closes stdin (or dies). */
    public static void serve() throws IOException {
        BufferedReader in = stdin();
        String line;
        while ((line = in.readLine()) != null) {
            String r = SwitchableIdle.command(line.trim());
            System.out.println(r != null ? r : "ERROR unknown command " + line);
            System.out.flush();
        }
    }

    /**
     * The client's loop: "hot" / "cold", "quit", or "MODE SIZE COUNT" for {@code measurements}; a failing measurement
     * answers "ERROR message" (its stack trace goes to stderr) and the loop goes on. Returns on "quit" or end of stdin.
     */
    public static void run(Measurements measurements) throws IOException {
        BufferedReader in = stdin();
        String line;
        while ((line = in.readLine()) != null) {
            String[] w = line.trim().split("\\s+");
            if (w[0].isEmpty()) {
                continue;
            }
            if (w[0].equals("quit")) {
                break;
            }
            String hc = SwitchableIdle.command(w[0]);
            if (hc != null) {
                System.out.println(hc);
                System.out.flush();
                continue;
            }
            String result;
            try {
                result = measurements.run(w[0], Integer.parseInt(w[1]), Long.parseLong(w[2]));
            } catch (Throwable e) {
                e.printStackTrace();
                result = "ERROR " + (e.getMessage() == null ? e.toString() : e.getMessage()).replace('\n', ' ');
            }
            System.out.println(result);
            System.out.flush();
        }
    }

    private static BufferedReader stdin() {
        return new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    }
}
