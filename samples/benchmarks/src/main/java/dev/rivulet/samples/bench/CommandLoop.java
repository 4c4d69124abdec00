package dev.rivulet.samples.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.function.UnaryOperator;

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
        serve(SwitchableIdle::command);
    }

    /**
     * The server's loop with its own control commands: {@code control} answers a whole command line, or returns
     * null for one it does not know; returns when the parent closes stdin (or dies).
     */
    public static void serve(UnaryOperator<String> control) throws IOException {
        BufferedReader in = stdin();
        String line;
        while ((line = in.readLine()) != null) {
            String r = control.apply(line.trim());
            System.out.println(r != null ? r : "ERROR unknown command " + line);
            System.out.flush();
        }
    }

    /**
     * The client's loop: "hot" / "cold", "quit", or "MODE SIZE COUNT" for {@code measurements}; a failing measurement
     * answers "ERROR message" (its stack trace goes to stderr) and the loop goes on. Returns on "quit" or end of stdin.
     */
    public static void run(Measurements measurements) throws IOException {
        run(SwitchableIdle::command, measurements);
    }

    /**
     * {@link #run(Measurements)} with the node's own control commands: {@code control} answers a whole command line
     * before it is taken for a measurement, or returns null for one it does not know.
     */
    public static void run(UnaryOperator<String> control, Measurements measurements) throws IOException {
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
            String hc = control.apply(line.trim());
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
