package dev.rivulet.rio.shm;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Another process of the shared-memory tests: a JVM running one of the test classes' {@code main}, whose output
 * lines the test waits for by prefix (everything else is echoed) and whose standard input takes commands. Its
 * output is read by a thread of its own from the start, so the child never blocks on a full pipe.
 */
final class ChildProcess implements AutoCloseable {

    private static final String END = "\u0000end";

    final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final OutputStream in;

    private ChildProcess(Process process) {
        this.process = process;
        this.in = process.getOutputStream();
        Thread.ofPlatform().daemon(true).name("child-" + process.pid()).start(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String l;
                while ((l = out.readLine()) != null) {
                    lines.add(l);
                }
            } catch (IOException ended) {
                // the child went; waiting for more lines ends below
            }
            lines.add(END);
        });
    }

    /** Runs {@code main} in a fresh JVM with this JVM's class path, behind {@code wrapper} (a command, or none). */
    static ChildProcess jvm(List<String> wrapper, Class<?> main, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(wrapper);
        cmd.addAll(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), main.getName()));
        cmd.addAll(List.of(args));
        return new ChildProcess(new ProcessBuilder(cmd).redirectErrorStream(true).start());
    }

    /** The rest of the next line that starts with {@code prefix}, trimmed. */
    String await(String prefix, Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        for (;;) {
            String l = lines.poll(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (l == null || l.equals(END)) {
                lines.add(END);
                throw new IllegalStateException("process " + process.pid() + (l == null ? " printed no " : " ended "
                        + "before printing ") + prefix);
            }
            if (l.startsWith(prefix)) {
                return l.substring(prefix.length()).trim();
            }
            System.out.println("[" + process.pid() + "] " + l);
        }
    }

    /** Writes {@code line} to the child's standard input. */
    void send(String line) throws IOException {
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    long pid() {
        return process.pid();
    }

    /** SIGKILLs the child and waits for it to be gone. */
    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }
}
