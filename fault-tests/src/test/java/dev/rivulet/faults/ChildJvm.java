package dev.rivulet.faults;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A child JVM started inside a namespace with {@code ip netns exec <ns> <java> ...}: the same java binary and class
 * path as the test, native access enabled, a fixed number of JIT and GC threads (so its thread count only moves when
 * Rivulet's does), and its Java heap touched as it is committed (so the resident set moves with the committed heap,
 * not with the pages a collection happens to touch, and {@link Recovery} can compare it). Its stdout is the {@link Line} protocol; every line it prints and everything on its stderr also
 * goes to a log file under {@code target/fault-logs}, which a failure message points to.
 */
final class ChildJvm implements AutoCloseable {

    private static final List<String> JVM_FLAGS = List.of("--enable-native-access=ALL-UNNAMED",
            "-XX:+UseSerialGC", "-XX:CICompilerCount=2",
            "-XX:-UseDynamicNumberOfCompilerThreads", "-Xmx1g", "-Xss1m", "-XX:+AlwaysPreTouch");

    private final String name;
    private final Process process;
    private final Path log;
    private final Writer logWriter;
    private final LinkedList<Line> unread = new LinkedList<>();
    private long pid;
    private boolean ended;

    private ChildJvm(String name, Process process, Path log, Writer logWriter) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.logWriter = logWriter;
        Thread.ofPlatform().daemon(true).name("child-" + name).start(this::readLines);
    }

    /** Starts {@code main} inside {@code ns} with {@code args}, logging to {@code logDir/name.log}. */
    static ChildJvm start(String name, Namespace ns, Class<?> main, List<String> args, Path logDir) {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(ns.exec(java));
        command.addAll(JVM_FLAGS);
        // a crash report next to the child's log, where the failure message points
        command.add("-XX:ErrorFile=" + logDir.toAbsolutePath().resolve(name + "-hs_err_%p.log"));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(args);
        try {
            Files.createDirectories(logDir);
            Path log = logDir.resolve(name + ".log");
            Files.deleteIfExists(log);
            Writer w = Files.newBufferedWriter(log, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
            Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            return new ChildJvm(name, p, log, w);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + name + ": " + command, e);
        }
    }

    private void readLines() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String raw;
            while ((raw = in.readLine()) != null) {
                synchronized (logWriter) {
                    logWriter.write("> " + raw + "\n");
                    logWriter.flush();
                }
                Line line = Line.parse(raw);
                synchronized (this) {
                    unread.add(line);
                    notifyAll();
                }
            }
        } catch (IOException e) {
            // the process is gone
        } finally {
            synchronized (this) {
                ended = true;
                notifyAll();
            }
        }
    }

    String name() {
        return name;
    }

    /** The JVM's pid (reported by itself, so it is java's and not that of a wrapper); waits for it at first. */
    synchronized long pid() {
        if (pid == 0) {
            pid = await("PID", Duration.ofSeconds(60)).getLong("pid");
        }
        return pid;
    }

    Path log() {
        return log;
    }

    /** Sends one command line. */
    void send(String command) {
        try {
            synchronized (logWriter) {
                logWriter.write("< " + command + "\n");
                logWriter.flush();
            }
            var in = process.getOutputStream();
            in.write((command + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        } catch (IOException e) {
            throw new AssertionError(name + " no longer takes commands (" + e + "); see " + log, e);
        }
    }

    /** The next unread line of {@code kind}. */
    Line await(String kind, Duration timeout) {
        return await(kind, l -> true, timeout);
    }

    /**
     * The first unread line of {@code kind} that {@code which} accepts (it is then read; other lines stay for later
     * calls). Fails, rather than waits on, a process that has ended.
     */
    synchronized Line await(String kind, Predicate<Line> which, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (var it = unread.iterator(); it.hasNext(); ) {
                Line l = it.next();
                if (l.kind().equals(kind) && which.test(l)) {
                    it.remove();
                    return l;
                }
                if (l.kind().equals("FAILED")) {
                    it.remove();
                    throw new AssertionError(name + " reported " + l + " (see " + log + ")");
                }
            }
            long left = deadline - System.nanoTime();
            if (ended) {
                throw new AssertionError(name + " ended" + exitNote() + " before printing " + kind + "; see " + log);
            }
            if (left <= 0) {
                throw new AssertionError(name + " printed no " + kind + " within " + timeout + "; see " + log);
            }
            try {
                TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, 100_000_000L));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + kind, e);
            }
        }
    }

    /** Sends {@code command} and waits for the answer of the same kind. */
    Line ask(String command, Duration timeout) {
        return ask(command, Line.parse(command).kind(), timeout);
    }

    /** Sends {@code command} and waits for the answer of kind {@code reply}. */
    Line ask(String command, String reply, Duration timeout) {
        send(command);
        return await(reply, timeout);
    }

    private String exitNote() {
        try {
            return process.waitFor(1, TimeUnit.SECONDS) ? " (exit " + process.exitValue() + ")" : "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /** Sends a signal ({@code KILL}, {@code STOP}, {@code CONT}) to the JVM. */
    void signal(String signal) {
        HostCommand.run("kill", "-s", signal, Long.toString(pid()));
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Waits for the process to end (after a kill). */
    boolean awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Asks the JVM to quit, and kills it if it has not within a few seconds (also when stopped). */
    @Override
    public void close() {
        try {
            if (process.isAlive()) {
                try {
                    send("QUIT");
                } catch (AssertionError ignored) {
                    // stdin already closed
                }
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(10, TimeUnit.SECONDS);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        } finally {
            try {
                synchronized (logWriter) {
                    logWriter.close();
                }
            } catch (IOException ignored) {
                // nothing left to log
            }
        }
    }
}
