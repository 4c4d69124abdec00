package dev.rivulet.core.loop;

import dev.rivulet.core.error.TransportException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** What {@link ErrorPathClasses} does at transport start, checked against what the JDK and the kernel say. */
class ErrorPathClassesTest {

    /**
     * A jar the class path loader has not opened yet is opened at start: opened first while descriptors are short,
     * it would fail and be dropped from the class path for good. The kernel's descriptor table says whether it is
     * open.
     */
    @Test
    void everyJarOfTheClassPathIsOpenedAtStart(@TempDir Path dir) throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/fd")), "needs Linux's /proc to see open files");
        Path first = jar(dir.resolve("first.jar"));
        Path last = jar(dir.resolve("last.jar"));
        try (URLClassLoader loader = new URLClassLoader(new URL[]{first.toUri().toURL(), last.toUri().toURL()},
                null)) {
            assertThat(openFiles()).doesNotContain(first.toRealPath(), last.toRealPath());
            ErrorPathClasses.openClassPath(loader);
            assertThat(openFiles()).contains(first.toRealPath(), last.toRealPath());
        }
    }

    /** Every error type of core is on core's list: a type added later is needed on an error path too. */
    @Test
    void coresListHasEveryErrorType() throws Exception {
        Path source = Path.of(TransportException.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> errorTypes = new ArrayList<>();
        String folder = "dev/rivulet/core/error/";
        if (Files.isDirectory(source)) {
            try (Stream<Path> files = Files.list(source.resolve(folder))) {
                files.map(f -> folder + f.getFileName()).forEach(errorTypes::add);
            }
        } else {
            try (JarFile jar = new JarFile(source.toFile())) {
                jar.stream().map(JarEntry::getName).filter(n -> n.startsWith(folder) && n.indexOf('/',
                        folder.length()) < 0).forEach(errorTypes::add);
            }
        }
        List<String> types = errorTypes.stream().filter(n -> n.endsWith(".class") && !n.contains("$")
                        && !n.endsWith("package-info.class"))
                .map(n -> n.substring(0, n.length() - 6).replace('/', '.')).toList();
        assertThat(types).isNotEmpty();
        assertThat(ErrorPathClasses.coreClasses().stream().map(Class::getName)).containsAll(types);
    }

    private static Path jar(Path at) throws IOException {
        try (OutputStream out = Files.newOutputStream(at); JarOutputStream j = new JarOutputStream(out)) {
            j.putNextEntry(new JarEntry("marker.txt"));
            j.write(1);
            j.closeEntry();
        }
        return at;
    }

    private static List<Path> openFiles() throws IOException {
        List<Path> open = new ArrayList<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    open.add(Files.readSymbolicLink(fd));
                } catch (NoSuchFileException closedMeanwhile) {
                    // the listing's own descriptor, or one another thread closed
                }
            }
        }
        return open;
    }
}
