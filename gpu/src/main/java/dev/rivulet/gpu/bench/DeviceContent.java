package dev.rivulet.gpu.bench;

import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.gpu.CopyEvent;
import dev.rivulet.gpu.CopyStream;
import dev.rivulet.gpu.DeviceBuffer;
import dev.rivulet.gpu.DeviceMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.zip.CRC32C;

/**
 * Writes a known pattern into device memory and checksums what device memory holds, through pinned host memory:
 * how the IPC benchmark and tests tell that bytes crossed between processes intact. Waits for its copies by
 * querying their events (never on a polling thread).
 */
public final class DeviceContent {

    private DeviceContent() {
    }

    /** Fills {@code buffer} with the pattern of {@code seed}. */
    public static void fill(DeviceMemory memory, MemoryDomain domain, DeviceBuffer buffer, long seed) {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment host = arena.allocate(buffer.length(), 4096);
            pattern(host, seed);
            MemoryRegion region = domain.register(host);
            try (CopyStream s = memory.openStream(); CopyEvent e = s.newEvent()) {
                memory.pinRegion(region);
                s.copyToDevice(host, buffer.length(), buffer, 0, e);
                await(e);
            } finally {
                region.close();
            }
        }
    }

    /** CRC32C of {@code buffer}'s bytes. */
    public static long checksum(DeviceMemory memory, MemoryDomain domain, DeviceBuffer buffer) {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment host = arena.allocate(buffer.length(), 4096);
            MemoryRegion region = domain.register(host);
            try (CopyStream s = memory.openStream(); CopyEvent e = s.newEvent()) {
                memory.pinRegion(region);
                s.copyToHost(buffer, 0, host, buffer.length(), e);
                await(e);
            } finally {
                region.close();
            }
            return checksum(host);
        }
    }

    /** CRC32C of the pattern of {@code seed} over {@code bytes}. */
    public static long expected(long bytes, long seed) {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment host = arena.allocate(bytes, 8);
            pattern(host, seed);
            return checksum(host);
        }
    }

    private static void pattern(MemorySegment s, long seed) {
        long x = seed * 0x9E3779B97F4A7C15L + 1;
        long i = 0;
        for (; i + 8 <= s.byteSize(); i += 8) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, i, x);
        }
        for (; i < s.byteSize(); i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (x >>> (i & 7)));
        }
    }

    private static long checksum(MemorySegment s) {
        CRC32C crc = new CRC32C();
        crc.update(s.asByteBuffer());
        return crc.getValue();
    }

    private static void await(CopyEvent e) {
        while (!e.isComplete()) {
            Thread.onSpinWait();
        }
    }
}
