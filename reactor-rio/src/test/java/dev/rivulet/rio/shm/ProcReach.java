package dev.rivulet.rio.shm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * What any process of the same user can try against a Rivulet process without being its peer: list its descriptors
 * under {@code /proc/<pid>/fd}, open each shared-memory file it finds there read-write and write {@code 0xEE} at the
 * start of every page, and open {@code /proc/<pid>/mem} for writing. It prints one line per attempt:
 * {@code WROTE <pages>} or {@code OPEN denied} per file it found, then {@code FDS <files found>} (or
 * {@code FDS denied} when it may not list them), {@code MEM opened} or {@code MEM denied}, then {@code END}.
 */
public final class ProcReach {

    private ProcReach() {
    }

    public static void main(String[] args) {
        String pid = args[0];
        int files = 0;
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc", pid, "fd"))) {
            for (Path fd : fds) {
                String target;
                try {
                    target = Files.readSymbolicLink(fd).toString();
                } catch (IOException goneOrRefused) {
                    continue; // closed meanwhile, or the kernel does not let this process follow it
                }
                if (target.contains(":rivulet-")) {
                    files++;
                    System.out.println(write(fd));
                }
            }
            System.out.println("FDS " + files);
        } catch (IOException e) {
            System.out.println("FDS denied " + e);
        }
        try (FileChannel mem = FileChannel.open(Path.of("/proc", pid, "mem"), StandardOpenOption.WRITE)) {
            System.out.println("MEM opened");
        } catch (IOException e) {
            System.out.println("MEM denied " + e);
        }
        System.out.println("END");
        System.out.flush();
    }

    private static String write(Path fd) {
        try (FileChannel ch = FileChannel.open(fd, StandardOpenOption.READ, StandardOpenOption.WRITE);
             Arena arena = Arena.ofConfined()) {
            long size = ch.size();
            MemorySegment all = ch.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
            for (long page = 0; page < size / 4096; page++) {
                all.set(ValueLayout.JAVA_BYTE, page * 4096, (byte) 0xEE);
            }
            return "WROTE " + size / 4096;
        } catch (IOException | RuntimeException e) {
            return "OPEN denied " + e;
        }
    }
}
