package dev.rivulet.docs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ./mvnw} on a machine whose default JDK is older than 25: it builds on a JDK 25 it finds itself, or says in
 * one line what it needs, never failing on an option the older JVM does not know ({@code .mvn/jdk.sh}).
 */
class BuildJdkTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @TempDir
    Path temp;

    /** A directory that looks like a JDK of {@code release} to the search (java prints the property, javac exists). */
    private Path fakeJdk(String name, int release) throws IOException {
        Path bin = Files.createDirectories(temp.resolve(name).resolve("bin"));
        script(bin.resolve("java"), "echo '    java.specification.version = " + release + "' >&2");
        script(bin.resolve("javac"), "exit 0");
        return bin.getParent();
    }

    private static void script(Path p, String body) throws IOException {
        Files.writeString(p, "#!/bin/sh\n" + body + "\n", StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private record Run(int exit, String output) {
    }

    private Run sh(Map<String, String> env, String... command) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).directory(ROOT.toFile()).redirectErrorStream(true);
        pb.environment().clear();
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), out);
    }

    @Test
    void theSearchSkipsAnOlderJavaHomeForAJdk25() throws Exception {
        Path old = fakeJdk("jdk17", 17);
        Path jdk25 = fakeJdk("jdk25", 25);
        Run r = sh(Map.of("JAVA_HOME", old.toString(), "RIVULET_JDK_DIRS", temp + "/*",
                        "PATH", old.resolve("bin") + ":/usr/bin:/bin", "HOME", temp.toString()),
                "sh", "-c", ". .mvn/jdk.sh && rivulet_find_jdk");
        assertThat(r.exit()).isZero();
        assertThat(r.output().strip()).isEqualTo(jdk25.toString());
    }

    @Test
    void withoutAJdk25TheWrapperSaysSoInOneLine() throws Exception {
        Path old = fakeJdk("jdk17", 17);
        Run r = sh(Map.of("JAVA_HOME", old.toString(), "RIVULET_JDK_DIRS", "",
                "PATH", old.resolve("bin") + ":/usr/bin:/bin", "HOME", temp.toString()), "sh", "./mvnw", "-v");
        assertThat(r.exit()).isEqualTo(1);
        List<String> lines = r.output().lines().toList();
        assertThat(lines).hasSize(1);
        assertThat(lines.getFirst()).startsWith("rivulet: JDK 25 or newer needed to build")
                .contains("JAVA_HOME='" + old + "'");
    }
}
