package dev.rivulet.samples.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A native C baseline in {@code samples/benchmarks/src/main/c}, compiled by the CLI that runs it: each measurement is one
 * invocation that prints one "RESULT k=v ..." line.
 */
public final class NativeProgram {

    private final Path moduleDir;
    private final Path binary;
    private final Map<String, String> env;

    private NativeProgram(Path moduleDir, Path binary, Map<String, String> env) {
        this.moduleDir = moduleDir;
        this.binary = binary;
        this.env = env;
    }

    /**
     * Runs {@code gcc -O2 -o target/NAME src/main/c/NAME.c LIBS} in {@code moduleDir} (echoing the command) and
     * returns the program, run with extra environment variables {@code env} (unless set already).
     */
    public static NativeProgram compile(Path moduleDir, String name, String libs, Map<String, String> env)
            throws IOException, InterruptedException {
        String cc = ("gcc -O2 -o target/" + name + " src/main/c/" + name + ".c " + libs).trim();
        System.out.println("# " + cc + "   (in " + moduleDir + ")");
        Files.createDirectories(moduleDir.resolve("target"));
        Process gcc = new ProcessBuilder("sh", "-c", cc).directory(moduleDir.toFile()).inheritIO().start();
        if (gcc.waitFor() != 0) {
            throw new IllegalStateException("compiling the native baseline failed: " + cc);
        }
        return new NativeProgram(moduleDir, moduleDir.resolve("target").resolve(name), env);
    }

    /** Runs the program with {@code args} and returns its RESULT line (printed as well). */
    public String run(List<String> args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(binary.toString());
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(moduleDir.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        env.forEach(pb.environment()::putIfAbsent);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException("native " + String.join(" ", args) + " failed: " + out);
        }
        String line = out.lines().filter(l -> l.startsWith("RESULT ")).findFirst()
                .orElseThrow(() -> new IllegalStateException("native run printed no RESULT: " + out));
        System.out.println(line);
        return line;
    }
}
