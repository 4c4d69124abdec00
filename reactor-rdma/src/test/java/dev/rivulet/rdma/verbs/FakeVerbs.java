package dev.rivulet.rdma.verbs;

import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.NativeRegistration;
import dev.rivulet.rdma.verbs.sys.IbvMr;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The software RC device of {@code fake_verbs.c}, compiled with gcc against the installed verbs header on first use:
 * contexts whose ops table points at C functions that behave like a reliable connection (see the C file), and a
 * registrar that enforces the access flags the production code asks for. Tests that need it are skipped without gcc
 * or the header.
 */
final class FakeVerbs {

    private static final String SOURCE = "fake_verbs.c";
    private static volatile Api api;
    private static volatile String unavailable;

    private record Api(MethodHandle context, MethodHandle createCq, MethodHandle createQp, MethodHandle connect,
                       MethodHandle disconnect, MethodHandle destroyQp, MethodHandle destroyCq, MethodHandle regMr,
                       MethodHandle deregMr, MethodHandle waiting) {
    }

    private FakeVerbs() {
    }

    /** Skips the calling test when the fake device cannot be built here. */
    static void assumeBuilt() {
        load();
        Assumptions.assumeTrue(api != null, () -> "the fake verbs device cannot be built here: " + unavailable);
    }

    private static synchronized void load() {
        if (api != null || unavailable != null) {
            return;
        }
        try {
            Path dir = Files.createTempDirectory("rivulet-fake-verbs");
            Path source = dir.resolve(SOURCE);
            try (InputStream in = FakeVerbs.class.getResourceAsStream(SOURCE)) {
                Files.copy(in, source);
            }
            Path lib = dir.resolve("libfakeverbs.so");
            Process p = new ProcessBuilder("gcc", "-std=gnu11", "-O1", "-Wall", "-shared", "-fPIC", "-o",
                    lib.toString(), source.toString(), "-lpthread").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                unavailable = "gcc failed: " + out.lines().findFirst().orElse("");
                return;
            }
            api = bind(lib);
        } catch (IOException | InterruptedException e) {
            unavailable = "cannot compile " + SOURCE + ": " + e;
        }
    }

    @SuppressWarnings("restricted")
    private static Api bind(Path lib) {
        SymbolLookup l = SymbolLookup.libraryLookup(lib, Arena.global());
        Linker linker = Linker.nativeLinker();
        java.util.function.BiFunction<String, FunctionDescriptor, MethodHandle> f =
                (name, d) -> linker.downcallHandle(l.find(name).orElseThrow(), d);
        return new Api(
                f.apply("fake_context", FunctionDescriptor.of(ADDRESS)),
                f.apply("fake_create_cq", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT)),
                f.apply("fake_create_qp", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_INT, JAVA_INT)),
                f.apply("fake_connect", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS)),
                f.apply("fake_disconnect", FunctionDescriptor.ofVoid(ADDRESS)),
                f.apply("fake_destroy_qp", FunctionDescriptor.ofVoid(ADDRESS)),
                f.apply("fake_destroy_cq", FunctionDescriptor.ofVoid(ADDRESS)),
                f.apply("fake_reg_mr", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT)),
                f.apply("fake_dereg_mr", FunctionDescriptor.ofVoid(JAVA_INT)),
                f.apply("fake_waiting", FunctionDescriptor.of(JAVA_INT, ADDRESS)));
    }

    @SuppressWarnings("restricted")
    private static MemorySegment sized(MemorySegment p, long size) {
        return p.reinterpret(size);
    }

    private static Object call(MethodHandle h, Object... args) {
        try {
            return h.invokeWithArguments(args);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** A new device context: its ops table is the fake's. */
    static MemorySegment context() {
        return (MemorySegment) call(api.context());
    }

    /** A connected pair of queue pairs, each with its own CQ, on contexts {@code a} and {@code b}. */
    static QueuePair[] connectedPair(MemorySegment a, QueuePair.Sizes aSizes, MemorySegment b,
                                     QueuePair.Sizes bSizes) {
        QueuePair x = queuePair(a, aSizes);
        QueuePair y = queuePair(b, bSizes);
        call(api.connect(), x.qp, y.qp);
        return new QueuePair[]{x, y};
    }

    private static QueuePair queuePair(MemorySegment context, QueuePair.Sizes sizes) {
        MemorySegment cq = sized((MemorySegment) call(api.createCq(), context, sizes.cqe()), 128);
        MemorySegment qp = sized((MemorySegment) call(api.createQp(), context, cq, sizes.sendWr(), sizes.recvWr()),
                160);
        // What rdma_disconnect and the destroys do on a device: the peer's queue pair goes to the error state.
        return new QueuePair(cq, qp, MemorySegment.NULL, sizes.sendWr(), sizes.recvWr(), sizes.inline(), () -> {
            call(api.disconnect(), qp);
            call(api.destroyQp(), qp);
            call(api.destroyCq(), cq);
        });
    }

    /** Requests of {@code qp} that wait for the peer to post a receive. */
    static int waiting(QueuePair qp) {
        return (int) call(api.waiting(), qp.qp);
    }

    /**
     * A registrar for a memory domain on the fake device: exactly {@link VerbsDevice#accessFlags} (what production
     * registers with), an rkey the device chose, and an {@code ibv_mr}-shaped descriptor carrying the lkey.
     */
    static NativeRegistration register(MemorySegment segment, Set<Access> access) {
        int key = (int) call(api.regMr(), segment.address(), segment.byteSize(), VerbsDevice.accessFlags(access));
        Arena arena = Arena.ofShared();
        MemorySegment mr = arena.allocate(IbvMr.LAYOUT);
        mr.set(JAVA_INT, IbvMr.LAYOUT.byteOffset(MemoryLayout.PathElement.groupElement("lkey")), key);
        mr.set(JAVA_INT, IbvMr.LAYOUT.byteOffset(MemoryLayout.PathElement.groupElement("rkey")), key);
        mr.set(ValueLayout.JAVA_LONG, IbvMr.LAYOUT.byteOffset(MemoryLayout.PathElement.groupElement("addr")),
                segment.address());
        return new NativeRegistration(Integer.toUnsignedLong(key), segment.address(), mr,
                "verbs".getBytes(StandardCharsets.US_ASCII), () -> {
                    call(api.deregMr(), key);
                    arena.close();
                });
    }
}
