package dev.rivulet.conformance;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * Where a child JVM loads its classes from, which decides what a class loaded late costs when descriptors run out:
 * a class in a folder is a file opened at that moment, a class in a jar already open costs nothing, and a jar not yet
 * opened is opened then (and, if that fails, is dropped from the class path for good by the JDK's class path
 * loader). A process out of descriptors that needs a class on an error path fails differently in each case, so
 * the descriptor-exhaustion tests run the child both ways.
 */
public enum ChildClassPath {

    /** This JVM's class path as it is (surefire: the module's own classes in folders, its dependencies in jars). */
    AS_IS,
    /** Every Rivulet class in a folder: this JVM's folders, and Rivulet jars unpacked into folders. */
    FOLDERS,
    /** Every class in a jar: this JVM's folders packed into jars, its jars as they are. */
    JARS;

    /** The class path for a child, made under {@code scratch} (which the caller deletes afterwards). */
    public String build(Path scratch) throws IOException {
        List<String> entries = new ArrayList<>();
        int n = 0;
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(entry);
            Path made = scratch.resolve((n++) + "-" + p.getFileName());
            if (this == FOLDERS && Files.isRegularFile(p) && p.getFileName().toString().startsWith("rivulet-")) {
                unpack(p, made);
                entries.add(made.toString());
            } else if (this == JARS && Files.isDirectory(p)) {
                Path jar = Path.of(made + ".jar");
                pack(p, jar);
                entries.add(jar.toString());
            } else {
                entries.add(entry);
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    private static void unpack(Path jar, Path into) throws IOException {
        try (JarFile j = new JarFile(jar.toFile())) {
            for (Enumeration<JarEntry> it = j.entries(); it.hasMoreElements(); ) {
                JarEntry e = it.nextElement();
                Path target = into.resolve(e.getName()).normalize();
                if (!target.startsWith(into)) {
                    throw new IOException("entry outside the jar's folder: " + e.getName());
                }
                if (e.isDirectory()) {
                    Files.createDirectories(target);
                    continue;
                }
                Files.createDirectories(target.getParent());
                try (InputStream in = j.getInputStream(e)) {
                    Files.copy(in, target);
                }
            }
        }
    }

    private static void pack(Path folder, Path jar) throws IOException {
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out);
             Stream<Path> files = Files.walk(folder)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
                j.putNextEntry(new JarEntry(folder.relativize(f).toString().replace(File.separatorChar, '/')));
                Files.copy(f, j);
                j.closeEntry();
            }
        }
    }

    /** Deletes {@code scratch} and everything under it; what cannot be deleted is left. */
    static void delete(Path scratch) {
        try (Stream<Path> all = Files.walk(scratch)) {
            all.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary folder left behind is harmless
        }
    }
}
