package dev.rivulet.faults;

import dev.rivulet.core.Transport;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * How much memory a child JVM holds, in the parts a leak would show in: the registered bytes of its transport's
 * buffer pool and the regions its memory domain holds registered (pool slabs included), the bytes glibc's
 * {@code malloc} has handed out and not had back (every native allocation: FFM arenas, so the pool's slabs and the
 * transports' staging and receive buffers, and libfabric's own), the resident set, and what of it the JVM manages
 * itself (the committed Java heap; code cache, metaspace and class space).
 *
 * <p>Measured after a full collection (memory that only a collection frees, such as automatic arenas, is not held)
 * and after {@code malloc_trim(0)} (glibc keeps freed memory in its arenas; trimmed, the resident set shows what is
 * really held). Where glibc's {@code mallinfo2} is missing, {@link #mallocBytes} is -1 and not compared.
 */
record MemoryUse(long poolBytes, int regions, long mallocBytes, long rss, long heapCommitted, long nonHeapCommitted) {

    static MemoryUse measure(Transport transport) {
        System.gc();
        Glibc.trim();
        MemoryMXBean jvm = ManagementFactory.getMemoryMXBean();
        return new MemoryUse(transport.memory().buffers().registeredBytes(), transport.memory().regionCount(),
                Glibc.mallocInUse(), residentBytes(), jvm.getHeapMemoryUsage().getCommitted(),
                jvm.getNonHeapMemoryUsage().getCommitted());
    }

    /** The protocol fields, appended to a {@link ProcessHealth} line. */
    Object[] fields() {
        return new Object[]{"poolBytes", poolBytes, "regions", regions, "malloc", mallocBytes, "rss", rss,
                "heap", heapCommitted, "nonHeap", nonHeapCommitted};
    }

    static MemoryUse parse(Line l) {
        return new MemoryUse(l.getLong("poolBytes"), (int) l.getLong("regions"), l.getLong("malloc"),
                l.getLong("rss"), l.getLong("heap"), l.getLong("nonHeap"));
    }

    private static long residentBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("\\D+", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            throw new IllegalStateException("cannot read VmRSS from /proc/self/status", e);
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }

    /** glibc's view of the native heap, through FFM (the child JVMs run with native access enabled). */
    private static final class Glibc {
        /** {@code struct mallinfo2}: ten {@code size_t}. */
        private static final StructLayout MALLINFO2 = MemoryLayout.structLayout(
                ValueLayout.JAVA_LONG.withName("arena"), ValueLayout.JAVA_LONG.withName("ordblks"),
                ValueLayout.JAVA_LONG.withName("smblks"), ValueLayout.JAVA_LONG.withName("hblks"),
                ValueLayout.JAVA_LONG.withName("hblkhd"), ValueLayout.JAVA_LONG.withName("usmblks"),
                ValueLayout.JAVA_LONG.withName("fsmblks"), ValueLayout.JAVA_LONG.withName("uordblks"),
                ValueLayout.JAVA_LONG.withName("fordblks"), ValueLayout.JAVA_LONG.withName("keepcost"));
        private static final Optional<MethodHandle> MALLINFO = find("mallinfo2", FunctionDescriptor.of(MALLINFO2));
        private static final Optional<MethodHandle> TRIM = find("malloc_trim",
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));

        private static Optional<MethodHandle> find(String name, FunctionDescriptor d) {
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find(name).map(f -> linker.downcallHandle(f, d));
        }

        static void trim() {
            if (TRIM.isPresent()) {
                try {
                    int ignored = (int) TRIM.get().invokeExact(0L);
                } catch (Throwable t) {
                    throw new IllegalStateException("malloc_trim failed", t);
                }
            }
        }

        /** Bytes allocated and not freed: small chunks in the arenas plus chunks mapped on their own. */
        static long mallocInUse() {
            if (MALLINFO.isEmpty()) {
                return -1;
            }
            try (Arena a = Arena.ofConfined()) {
                MemorySegment info = (MemorySegment) MALLINFO.get().invokeExact((SegmentAllocator) a);
                return field(info, "uordblks") + field(info, "hblkhd");
            } catch (Throwable t) {
                throw new IllegalStateException("mallinfo2 failed", t);
            }
        }

        private static long field(MemorySegment info, String name) {
            return info.get(ValueLayout.JAVA_LONG, MALLINFO2.byteOffset(MemoryLayout.PathElement.groupElement(name)));
        }
    }
}
