package dev.rivulet.faults;

import reactor.core.Exceptions;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The child side of the line protocol: {@link #say} prints one {@link Line} on stdout (whole lines, from any
 * thread), {@link #serve} reads commands from stdin on the calling thread. When stdin ends the test that started
 * this JVM is gone, and the JVM exits rather than linger inside a namespace.
 */
final class PeerConsole {

    private final PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true,
            StandardCharsets.UTF_8);

    synchronized void say(String line) {
        out.println(line);
    }

    void say(String kind, Object... keyValues) {
        say(Line.format(kind, keyValues));
    }

    /** Reads commands until stdin closes, handing each to {@code handler}; a failing command is reported. */
    void serve(Consumer<Line> handler) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String raw;
            while ((raw = in.readLine()) != null) {
                if (raw.isBlank()) {
                    continue;
                }
                Line command = Line.parse(raw);
                try {
                    handler.accept(command);
                } catch (RuntimeException e) {
                    say(Line.format("FAILED", "command", command.kind(), "error", errorName(e)) + " -- "
                            + message(e));
                }
            }
        } catch (Exception e) {
            System.err.println("console: " + e);
        }
        System.exit(0);
    }

    /** The name the test asserts on: the exception's simple class name, TIMEOUT for a guard timeout. */
    static String errorName(Throwable e) {
        Throwable t = Exceptions.unwrap(e);
        if (t instanceof TimeoutException) {
            return "TIMEOUT";
        }
        return t.getClass().getSimpleName();
    }

    static String message(Throwable e) {
        return String.valueOf(Exceptions.unwrap(e).getMessage()).replace('\n', ' ');
    }

    /** Milliseconds since the epoch: comparable between the test and its children on one host. */
    static long now() {
        return System.currentTimeMillis();
    }
}
