package dev.rivulet.gpu.host;

import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.gpu.DeviceMemoryException;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Stand-in device memory another process can map: each allocation is a file of its own under {@code /dev/shm}
 * (readable and writable by this user only), mapped shared. Its IPC handle is the file's name; the file is deleted
 * when the allocation is freed, and at exit for those still allocated then (a process killed outright leaves its
 * files behind, as it would leave a POSIX shared memory object).
 */
final class SharedFiles {

    static final Path DIRECTORY = Path.of("/dev/shm");
    private static final String PREFIX = "rivulet-standin-";
    private static final AtomicLong SEQUENCE = new AtomicLong();
    private static final Set<Path> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(SharedFiles::delete),
                "rivulet-standin-files"));
    }

    private SharedFiles() {
    }

    static boolean available() {
        return Files.isDirectory(DIRECTORY) && Files.isWritable(DIRECTORY);
    }

    /** Creates a file of {@code bytes} and maps it into {@code arena}. */
    static MemorySegment create(Path file, long bytes, Arena arena) {
        try (FileChannel ch = FileChannel.open(file, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rw-------")))) {
            LIVE.add(file);
            ch.truncate(0);
            // Sparse: tmpfs gives pages on first touch, as anonymous memory would.
            ch.write(java.nio.ByteBuffer.wrap(new byte[1]), bytes - 1);
            return ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena);
        } catch (IOException e) {
            delete(file);
            throw new DeviceMemoryException("allocating " + bytes + " shared bytes in " + file, HostMemoryStandIn.KIND,
                    2, "standInErrorMemoryAllocation", e.toString());
        }
    }

    /** A new file name of this process. */
    static Path newFile() {
        return DIRECTORY.resolve(PREFIX + ProcessHandle.current().pid() + "-" + SEQUENCE.incrementAndGet());
    }

    /** Maps the file a handle names, which must be a stand-in allocation of {@code length} bytes. */
    static MemorySegment open(byte[] handle, long length, Arena arena) {
        String name = new String(handle, StandardCharsets.UTF_8);
        // A handle comes from a peer: only a stand-in allocation's file may be mapped, never any other path.
        if (!name.startsWith(PREFIX) || !name.substring(PREFIX.length()).matches("[0-9]+-[0-9]+")) {
            throw new InvalidRequestException("not a stand-in IPC handle: " + name);
        }
        Path file = DIRECTORY.resolve(name);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            if (ch.size() != length) {
                throw new InvalidRequestException("stand-in allocation " + name + " has " + ch.size()
                        + " bytes, the window says " + length);
            }
            return ch.map(FileChannel.MapMode.READ_WRITE, 0, length, arena);
        } catch (IOException e) {
            throw new DeviceMemoryException("opening stand-in IPC handle " + name, HostMemoryStandIn.KIND, 400,
                    "standInErrorInvalidHandle", e.toString());
        }
    }

    static byte[] handle(Path file) {
        return file.getFileName().toString().getBytes(StandardCharsets.UTF_8);
    }

    static void delete(Path file) {
        LIVE.remove(file);
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // Best effort, as at exit: the file only costs memory until the next reboot.
        }
    }
}
