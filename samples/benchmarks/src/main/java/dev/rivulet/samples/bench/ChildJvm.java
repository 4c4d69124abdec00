package dev.rivulet.samples.bench;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A benchmark node JVM started with this JVM's classpath and driven over its stdin/stdout: it prints "READY ..."
 * once set up, then answers each command line with one line starting with RESULT, ERROR or OK. Anything else it
 * prints is echoed with a "# role:" prefix. Closing its stdin tells it to exit.
 */
public final class ChildJvm implements AutoCloseable {

    public static final List<String> JVM_FLAGS = List.of("--enable-native-access=ALL-UNNAMED",
            "--sun-misc-unsafe-memory-access=allow", "-Xmx2g");

    private final String role;
    private final Process process;
    private final BufferedReader out;
    private final BufferedWriter in;

    private ChildJvm(String role, Process process) {
        this.role = role;
        this.process = process;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.in = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
    }

    /** Starts {@code mainClass role args...} in {@code dir} with extra environment variables (unless set already). */
    public static ChildJvm start(Class<?> mainClass, String role, List<String> args, Path dir, Map<String, String> env)
            throws IOException {
        return start(mainClass, role, args, dir, env, List.of());
    }

    /** As {@link #start(Class, String, List, Path, Map)}, with JVM flags of its own after the common ones. */
    public static ChildJvm start(Class<?> mainClass, String role, List<String> args, Path dir, Map<String, String> env,
                                 List<String> jvmFlags) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(JVM_FLAGS);
        cmd.addAll(jvmFlags);
        cmd.add("-cp");
        // Absolute, since the child runs in another directory.
        cmd.add(String.join(File.pathSeparator, Arrays.stream(System.getProperty("java.class.path")
                .split(File.pathSeparator)).map(e -> Path.of(e).toAbsolutePath().toString()).toList()));
        cmd.add(mainClass.getName());
        cmd.add(role);
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        env.forEach(pb.environment()::putIfAbsent);
        return new ChildJvm(role, pb.start());
    }

    /** Waits for the node's READY line (skipping anything else it prints) and returns it. */
    public String ready() throws IOException {
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith("READY")) {
                return line;
            }
            System.out.println("# " + role + ": " + line);
        }
        throw new IllegalStateException(role + " JVM exited before it was ready");
    }

    /** Sends one command; with {@code answer}, returns the first line starting with RESULT, ERROR or OK. */
    public String command(String command, boolean answer) throws IOException {
        in.write(command);
        in.newLine();
        in.flush();
        if (!answer) {
            return null;
        }
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith("RESULT ") || line.startsWith("ERROR") || line.startsWith("OK")) {
                return line;
            }
            System.out.println("# " + role + ": " + line);
        }
        throw new IllegalStateException(role + " JVM exited while running '" + command + "'");
    }

    @Override
    public void close() throws IOException {
        try {
            in.close();
        } catch (IOException e) {
            // already gone
        }
        try {
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
