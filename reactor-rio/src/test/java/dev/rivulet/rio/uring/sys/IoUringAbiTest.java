package dev.rivulet.rio.uring.sys;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rivulet.core.sys.Descriptors;
import dev.rivulet.core.sys.Epoll;
import dev.rivulet.core.sys.EpollEvent;
import dev.rivulet.core.sys.Errno;
import dev.rivulet.core.sys.Iovec;
import dev.rivulet.core.sys.Libc;
import dev.rivulet.core.sys.LibcSockets;
import dev.rivulet.core.sys.Linger;
import dev.rivulet.core.sys.Mappings;
import dev.rivulet.core.sys.Msghdr;
import dev.rivulet.core.sys.Pollfd;
import dev.rivulet.core.sys.SockaddrIn6;
import dev.rivulet.core.sys.SockaddrIn;
import dev.rivulet.core.sys.SockaddrStorage;
import dev.rivulet.core.sys.Timespec;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.StructLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compiles {@code io_uring_abi_probe.c} with gcc against the installed {@code <linux/io_uring.h>} and the POSIX
 * headers ({@code <sys/uio.h>}, {@code <netinet/in.h>}, {@code <poll.h>}, {@code <time.h>}, {@code <sys/socket.h>},
 * {@code <sys/epoll.h>}), runs it, and checks every struct size, alignment, member offset/size and constant the Java
 * binding and the shared native layer ({@code dev.rivulet.core.sys}) use against what C sees. Both directions are
 * checked, so the probe and the Java classes cannot drift apart silently. Skipped (with the reason printed) only
 * where gcc or the headers are missing.
 */
@Timeout(120)
class IoUringAbiTest {

    /** Every struct type of the binding, by its C name (the layout's name). */
    private static final List<StructLayout> LAYOUTS = List.of(
            IoUringParams.LAYOUT, IoSqringOffsets.LAYOUT, IoCqringOffsets.LAYOUT, IoUringSqe.LAYOUT,
            IoUringCqe.LAYOUT, IoUringGeteventsArg.LAYOUT, Timespec.LAYOUT, IoUringProbe.LAYOUT,
            IoUringProbeOp.LAYOUT, Iovec.LAYOUT, Msghdr.LAYOUT, IoUringRsrcRegister.LAYOUT, IoUringRsrcUpdate2.LAYOUT,
            SockaddrIn.LAYOUT, SockaddrIn6.LAYOUT, SockaddrStorage.LAYOUT, Pollfd.LAYOUT, Linger.LAYOUT,
            EpollEvent.LAYOUT);

    /** Every class whose static final int/long fields are C constants under the same names. */
    private static final List<Class<?>> CONSTANT_CLASSES = List.of(
            IoUringConstants.class, Errno.class, LibcSockets.class, IoUringSyscalls.class, Libc.class,
            Mappings.class, Descriptors.class, Epoll.class, IoUringGeteventsArg.class);

    /**
     * C members the Java layouts model through another member: union aliases written through the union's first
     * member, io_uring's {@code __kernel_timespec} written as a {@code struct timespec}, and the probe's flexible
     * array that starts where the Java header layout ends.
     */
    private static final Map<String, String> ALIASES = Map.ofEntries(
            Map.entry("io_uring_sqe.addr2", "io_uring_sqe.off"),
            Map.entry("io_uring_sqe.splice_off_in", "io_uring_sqe.addr"),
            Map.entry("io_uring_sqe.msg_flags", "io_uring_sqe.rw_flags"),
            Map.entry("io_uring_sqe.timeout_flags", "io_uring_sqe.rw_flags"),
            Map.entry("io_uring_sqe.accept_flags", "io_uring_sqe.rw_flags"),
            Map.entry("io_uring_sqe.cancel_flags", "io_uring_sqe.rw_flags"),
            Map.entry("io_uring_sqe.poll32_events", "io_uring_sqe.rw_flags"),
            Map.entry("io_uring_sqe.buf_group", "io_uring_sqe.buf_index"),
            Map.entry("io_uring_sqe.file_index", "io_uring_sqe.splice_fd_in"),
            Map.entry("__kernel_timespec.tv_sec", "timespec.tv_sec"),
            Map.entry("__kernel_timespec.tv_nsec", "timespec.tv_nsec"));

    @TempDir
    static Path work;

    private static final Map<String, Long> sizes = new LinkedHashMap<>();
    private static final Map<String, Long> alignments = new LinkedHashMap<>();
    private static final Map<String, long[]> members = new LinkedHashMap<>();
    private static final Map<String, Long> constants = new LinkedHashMap<>();

    @BeforeAll
    static void compileAndRunProbe() throws IOException, InterruptedException {
        Path header = Path.of("/usr/include/linux/io_uring.h");
        if (!Files.isRegularFile(header)) {
            skip(header + " is missing (install linux-libc-dev)");
        }
        Path source = work.resolve("io_uring_abi_probe.c");
        try (InputStream in = IoUringAbiTest.class.getResourceAsStream("io_uring_abi_probe.c")) {
            assertThat(in).as("probe source on the test classpath").isNotNull();
            Files.copy(in, source);
        }
        Path binary = work.resolve("io_uring_abi_probe");
        ProcessResult compiled;
        try {
            compiled = run(List.of("gcc", "-std=gnu11", "-Wall", "-Werror", "-o", binary.toString(), source.toString()));
        } catch (IOException e) {
            skip("gcc is not available (" + e.getMessage() + ")");
            return;
        }
        assertThat(compiled.exitCode).as("gcc output:%n%s", compiled.output).isZero();
        ProcessResult probe = run(List.of(binary.toString()));
        assertThat(probe.exitCode).as("probe output:%n%s", probe.output).isZero();
        for (String line : probe.output.split("\n")) {
            String[] f = line.trim().split(" ");
            switch (f[0]) {
                case "sizeof" -> sizes.put(f[1], Long.parseLong(f[2]));
                case "alignof" -> alignments.put(f[1], Long.parseLong(f[2]));
                case "member" -> members.put(f[1], new long[] {Long.parseLong(f[2]), Long.parseLong(f[3])});
                case "const" -> constants.put(f[1], Long.parseLong(f[2]));
                case "" -> { }
                default -> throw new AssertionError("unexpected probe line: " + line);
            }
        }
        assertThat(sizes).as("probe printed nothing").isNotEmpty();
    }

    @Test
    void structSizesAndAlignmentsMatchTheHeaders() {
        for (StructLayout layout : LAYOUTS) {
            String name = layout.name().orElseThrow();
            assertThat(layout.byteSize()).as("sizeof(%s)", name).isEqualTo(sizes.get(name));
            assertThat(layout.byteAlignment()).as("_Alignof(%s)", name).isEqualTo(alignments.get(name));
        }
    }

    @Test
    void everyJavaMemberHasTheHeadersOffsetAndSize() {
        Map<String, long[]> java = javaMembers();
        assertThat(java).isNotEmpty();
        java.forEach((path, offsetAndSize) -> {
            assertThat(members).as("the probe prints %s", path).containsKey(path);
            assertThat(offsetAndSize).as("offset and size of %s", path).containsExactly(members.get(path));
        });
    }

    @Test
    void unionAliasesAndFlexibleArraysSitWhereTheJavaLayoutsPutThem() {
        Map<String, long[]> java = javaMembers();
        ALIASES.forEach((alias, javaMember) ->
                assertThat(members.get(alias)).as("%s (written through %s)", alias, javaMember)
                        .containsExactly(java.get(javaMember)));
        assertThat(members.get("io_uring_probe.ops")[0]).as("io_uring_probe.ops follows the header")
                .isEqualTo(IoUringProbe.LAYOUT.byteSize());
        assertThat(IoUringProbeOp.SIZE).isEqualTo(sizes.get("io_uring_probe_op"));
        assertThat(Timespec.LAYOUT.byteSize()).as("sizeof(__kernel_timespec)")
                .isEqualTo(sizes.get("__kernel_timespec"));
    }

    @Test
    void everyProbedMemberIsModelledInJava() {
        Map<String, long[]> java = javaMembers();
        TreeSet<String> unmodelled = new TreeSet<>(members.keySet());
        unmodelled.removeAll(java.keySet());
        unmodelled.removeAll(ALIASES.keySet());
        unmodelled.remove("io_uring_probe.ops");
        assertThat(unmodelled).as("probe members without a Java counterpart").isEmpty();
    }

    @Test
    void everyJavaConstantHasTheHeadersValue() throws IllegalAccessException {
        List<String> mismatches = new ArrayList<>();
        int checked = 0;
        for (Class<?> type : CONSTANT_CLASSES) {
            for (Field field : type.getDeclaredFields()) {
                int m = field.getModifiers();
                if (!Modifier.isStatic(m) || !Modifier.isFinal(m)
                        || !(field.getType() == int.class || field.getType() == long.class)) {
                    continue;
                }
                field.setAccessible(true);
                String name = field.getName();
                Long c = constants.get(name);
                if (c == null) {
                    mismatches.add(type.getSimpleName() + "." + name + " is not printed by the probe");
                    continue;
                }
                checked++;
                boolean same = field.getType() == int.class
                        ? field.getInt(null) == c || Integer.toUnsignedLong(field.getInt(null)) == c
                        : field.getLong(null) == c;
                if (!same) {
                    mismatches.add(type.getSimpleName() + "." + name + ": Java " + field.get(null) + ", C " + c);
                }
            }
        }
        assertThat(mismatches).isEmpty();
        assertThat(checked).as("constants checked").isEqualTo(constants.size());
    }

    // ---- Java side of the comparison --------------------------------------------------------------------------

    /** "struct.member[.member]" -> {offset, size} for every named, non-padding member, nested structs included. */
    private static Map<String, long[]> javaMembers() {
        Map<String, long[]> out = new LinkedHashMap<>();
        for (StructLayout layout : LAYOUTS) {
            walk(layout, layout.name().orElseThrow(), 0, out);
        }
        return out;
    }

    private static void walk(GroupLayout group, String prefix, long base, Map<String, long[]> out) {
        long offset = 0;
        for (MemoryLayout member : group.memberLayouts()) {
            long at = group instanceof StructLayout ? offset : 0;
            if (!(member instanceof PaddingLayout)) {
                String path = member.name().map(n -> prefix + "." + n).orElse(prefix);
                if (member.name().isPresent()) {
                    out.put(path, new long[] {base + at, member.byteSize()});
                }
                if (member instanceof GroupLayout nested) {
                    walk(nested, path, base + at, out);
                }
            }
            offset += member.byteSize();
        }
    }

    // ---- Process plumbing ---------------------------------------------------------------------------------------

    private record ProcessResult(int exitCode, String output) {
    }

    private static ProcessResult run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("timed out: " + command);
        }
        return new ProcessResult(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    private static void skip(String reason) {
        System.out.println("IoUringAbiTest skipped: " + reason);
        Assumptions.abort(reason);
    }
}
