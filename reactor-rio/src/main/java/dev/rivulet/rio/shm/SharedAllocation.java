package dev.rivulet.rio.shm;

import dev.rivulet.core.error.InsufficientResourcesException;
import dev.rivulet.core.sys.Descriptors;
import dev.rivulet.core.sys.Mappings;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Memory of {@code MemoryDomain.allocateRegion} on this transport: a file under {@code /dev/shm}, mapped shared by
 * this process and unlinked at once, so it has no name and nothing can leak; the descriptor stays open (close-on-exec:
 * no program this process runs inherits it). A peer granted a window of it opens the file through
 * {@code /proc/<pid>/fd/<fd>} and maps exactly the window's pages. The kernel lets every process that may read this
 * one's descriptors open that path, read-write and whole: any process of the same user while this process is
 * dumpable, granted or not. Grants bind peers that go through Rivulet; {@code shm.nonDumpable} closes the path.
 *
 * <p>Freeing it unmaps this process's view and truncates the file to nothing, so a peer that kept a mapping (one
 * that never answered the unmap notice) reaches no byte of it afterwards: its accesses fault.
 */
final class SharedAllocation {

    private final Arena arena;
    private final FileChannel channel;
    private final java.util.concurrent.atomic.AtomicBoolean freed = new java.util.concurrent.atomic.AtomicBoolean();
    final MemorySegment segment;
    final int fd;

    private SharedAllocation(Arena arena, FileChannel channel, MemorySegment segment, int fd) {
        this.arena = arena;
        this.channel = channel;
        this.segment = segment;
        this.fd = fd;
    }

    static SharedAllocation create(long bytes) {
        long page = Mappings.pageSize();
        long size = (bytes + page - 1) / page * page;
        String name = ShmFiles.newName();
        Arena arena = Arena.ofShared();
        FileChannel ch = null;
        try {
            ch = ShmFiles.create(name);
            MemorySegment s = ch.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
            int fd = descriptorOf(ShmFiles.DIRECTORY.resolve(name));
            int rc = Descriptors.closeOnExec(fd);
            if (rc != 0) {
                throw new IOException("fcntl(FD_CLOEXEC) on descriptor " + fd + " failed: errno " + -rc);
            }
            return new SharedAllocation(arena, ch, s, fd);
        } catch (IOException | RuntimeException e) {
            arena.close();
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // already failing
                }
            }
            throw new InsufficientResourcesException("could not allocate " + bytes + " bytes of shared memory in "
                    + ShmFiles.DIRECTORY + ": " + e.getMessage(), e);
        } finally {
            ShmFiles.unlink(name);
        }
    }

    /** The number of this process's descriptor open on {@code path}, found before the path is unlinked. */
    private static int descriptorOf(Path path) throws IOException {
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path fd : fds) {
                try {
                    if (Files.readSymbolicLink(fd).equals(path)) {
                        return Integer.parseInt(fd.getFileName().toString());
                    }
                } catch (IOException | NumberFormatException closedMeanwhile) {
                    // another thread's descriptor came and went
                }
            }
        }
        throw new IOException("no descriptor of this process is open on " + path);
    }

    boolean contains(long address, long length) {
        long base = segment.address();
        return length >= 0 && address >= base && address - base <= segment.byteSize() - length;
    }

    /** Offset in the file of {@code address}. */
    long fileOffset(long address) {
        return address - segment.address();
    }

    /** Unmaps this process's view, cuts the file to nothing and closes it; idempotent. */
    void free() {
        if (!freed.compareAndSet(false, true)) {
            return;
        }
        arena.close();
        try {
            channel.truncate(0);
        } catch (IOException e) {
            // the pages go with the descriptor below anyway
        }
        try {
            channel.close();
        } catch (IOException e) {
            // nothing more to release
        }
    }
}
