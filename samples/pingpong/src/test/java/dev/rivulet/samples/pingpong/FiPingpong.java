package dev.rivulet.samples.pingpong;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** libfabric's {@code fi_pingpong} (Debian's libfabric-bin) run as a child process, its output kept in a file. */
final class FiPingpong implements AutoCloseable {

    private final Process process;
    private final Path output;

    private FiPingpong(Process process, Path output) {
        this.process = process;
        this.output = output;
    }

    /** The binary on the PATH, if there is one. */
    static Optional<Path> binary() {
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        return Arrays.stream(path.split(File.pathSeparator))
                .map(dir -> Path.of(dir, "fi_pingpong"))
                .filter(Files::isExecutable)
                .findFirst();
    }

    static FiPingpong start(List<String> args) {
        try {
            Path out = Files.createTempFile("fi_pingpong", ".out");
            List<String> command = new ArrayList<>();
            command.add(binary().orElseThrow().toString());
            command.addAll(args);
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            return new FiPingpong(p, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Its exit status, or -1 if it did not exit within {@code timeout} (it is then killed). */
    int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly().waitFor();
            return -1;
        }
        return process.exitValue();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** What it printed, stdout and stderr together. */
    String output() {
        try {
            return Files.readString(output, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The first three columns of each result line (bytes, #sent, #ack), e.g. {@code [4k, 50, =50]}. */
    List<List<String>> resultColumns() {
        return output().lines()
                .filter(l -> !l.isBlank() && Character.isDigit(l.charAt(0)))
                .map(l -> Arrays.asList(l.trim().split("\\s+")).subList(0, 3))
                .toList();
    }

    @Override
    public void close() throws IOException {
        process.destroyForcibly();
        Files.deleteIfExists(output);
    }

    /** A TCP port nobody listens on right now. */
    static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
