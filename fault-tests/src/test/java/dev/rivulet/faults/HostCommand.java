package dev.rivulet.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs one of the host's network tools ({@code ip}, {@code nft}, {@code tc}) and waits for it. A non-zero exit is an
 * {@link IllegalStateException} carrying the command and what it printed, so a harness failure says which step
 * failed and why.
 */
final class HostCommand {

    private static final long TIMEOUT_SECONDS = 20;

    private HostCommand() {
    }

    /** Output of a command that must succeed. */
    static String run(String... command) {
        Result r = attempt(null, command);
        if (r.exitCode() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed (exit " + r.exitCode() + "): "
                    + r.output().strip());
        }
        return r.output();
    }

    /** Runs {@code command} with {@code input} on its stdin; must succeed. */
    static String runWithInput(String input, String... command) {
        Result r = attempt(input, command);
        if (r.exitCode() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed (exit " + r.exitCode() + "): "
                    + r.output().strip() + "\ninput:\n" + input);
        }
        return r.output();
    }

    /** Runs a command whose failure the caller decides about (cleanup, probes). */
    static Result attempt(String input, String... command) {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        try {
            Process p = pb.start();
            if (input != null) {
                p.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
            }
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Result(-1, "timed out after " + TIMEOUT_SECONDS + " s");
            }
            return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
        } catch (IOException e) {
            return new Result(-1, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(-1, "interrupted");
        }
    }

    /** {@code prefix} followed by {@code rest}, as one argument vector. */
    static String[] concat(List<String> prefix, String... rest) {
        List<String> all = new ArrayList<>(prefix);
        all.addAll(Arrays.asList(rest));
        return all.toArray(String[]::new);
    }

    record Result(int exitCode, String output) {
        boolean ok() {
            return exitCode == 0;
        }
    }
}
