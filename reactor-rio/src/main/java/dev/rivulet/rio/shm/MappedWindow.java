package dev.rivulet.rio.shm;

import dev.rivulet.core.memory.Access;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;

/**
 * A peer's granted window mapped into this process: exactly the window's pages of the peer's shared file, read-only
 * unless the grant allows writing. What the owner told this side in its map answer; the owner keeps the grant pinned
 * until this side says it unmapped.
 *
 * @param mapId the owner's number for this mapping, named in the unmap notice and answer
 * @param key   the grant's key
 * @param base  the address the owner names for the window's first byte
 */
record MappedWindow(long mapId, long key, long base, long length, boolean readable, boolean writable,
                    boolean atomics, MemorySegment segment, Arena arena) {

    /** Maps {@code length} bytes at {@code fileOffset} of descriptor {@code fd} of process {@code pid}. */
    static MappedWindow map(long mapId, long key, long base, long length, int rights, long pid, int fd,
                            long fileOffset) throws IOException {
        boolean writable = (rights & RIGHT_WRITE) != 0;
        Path file = Path.of("/proc", Long.toString(pid), "fd", Integer.toString(fd));
        Set<OpenOption> mode = writable ? Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE)
                : Set.of(StandardOpenOption.READ);
        Arena arena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(file, mode)) {
            if (fileOffset < 0 || length <= 0 || fileOffset + length > ch.size()) {
                throw new IOException("window [" + fileOffset + ", +" + length + ") is outside the peer's file of "
                        + ch.size() + " bytes");
            }
            MemorySegment s = ch.map(writable ? FileChannel.MapMode.READ_WRITE : FileChannel.MapMode.READ_ONLY,
                    fileOffset, length, arena);
            return new MappedWindow(mapId, key, base, length, (rights & RIGHT_READ) != 0, writable,
                    (rights & RIGHT_ATOMIC) != 0, s, arena);
        } catch (IOException | RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /** Whether {@code [address, address + n)} lies in the window. */
    boolean covers(long address, long n) {
        long rel = address - base;
        return n >= 0 && rel >= 0 && rel <= length - n;
    }

    /** Whether an operation needing {@code right} may use the mapping. */
    boolean allows(Access right) {
        return switch (right) {
            case REMOTE_READ -> readable;
            case REMOTE_WRITE -> writable;
            case REMOTE_ATOMIC -> atomics && writable;
            default -> false;
        };
    }

    void unmap() {
        arena.close();
    }

    static final int RIGHT_READ = 1;
    static final int RIGHT_WRITE = 2;
    static final int RIGHT_ATOMIC = 4;

    static int rightsOf(Set<Access> rights) {
        return (rights.contains(Access.REMOTE_READ) ? RIGHT_READ : 0)
                | (rights.contains(Access.REMOTE_WRITE) ? RIGHT_WRITE : 0)
                | (rights.contains(Access.REMOTE_ATOMIC) ? RIGHT_ATOMIC : 0);
    }
}
