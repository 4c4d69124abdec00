package dev.rivulet.samples.bench.fabric;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Pins libfabric's {@code tcp} and {@code sockets} providers to the loopback interface in this process
 * ({@code FI_TCP_IFACE=lo}, {@code FI_SOCKETS_IFACE=lo} in the C environment, unless already set), for benchmarks
 * whose JVM is not started by {@link FabricBenchCli}. Must run before the first libfabric transport opens: libfabric
 * reads them when it initialises its providers.
 */
final class LoopbackFabric {

    private LoopbackFabric() {
    }

    static void pin() {
        try (Arena a = Arena.ofConfined()) {
            Linker l = Linker.nativeLinker();
            MethodHandle setenv = l.downcallHandle(l.defaultLookup().find("setenv").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
            for (String name : new String[]{"FI_TCP_IFACE", "FI_SOCKETS_IFACE"}) {
                MemorySegment k = a.allocateFrom(name);
                MemorySegment v = a.allocateFrom("lo");
                int rc = (int) setenv.invokeExact(k, v, 0); // 0: keep a value the user set
                if (rc != 0) {
                    throw new IllegalStateException("setenv(" + name + ") failed");
                }
            }
        } catch (Throwable t) {
            throw new IllegalStateException("cannot pin libfabric to loopback", t);
        }
    }
}
