package dev.rivulet.rdma.abi;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.StructLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Assumptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a binding's ABI test does with its C probe, the same for libfabric and for ibverbs: compile the probe with gcc,
 * run it, read what it prints about the installed headers, and compare that with the Java layouts and constants.
 *
 * <p>A probe prints one item a line: {@code version <major> <minor>} (optional), {@code struct <name> <size> <align>},
 * {@code field <struct> <path> <offset> <size>} (nested members as dotted paths) and {@code const <name> <value>}.
 * A Java struct's members are named as in C, nested groups give dotted paths, and a group named {@code $anon...} (C's
 * anonymous unions and structs) is transparent: its members are the enclosing struct's.
 */
public final class AbiProbe {

    private static final Logger LOG = LoggerFactory.getLogger(AbiProbe.class);

    /** Headers' version from the {@code version} line, or -1 when the probe prints none. */
    public final int major;
    public final int minor;
    public final Map<String, Struct> structs;
    public final Map<String, Long> constants;

    /** A C struct: {@code sizeof}, {@code alignof}, and each member's offset and size by dotted path. */
    public record Struct(long size, long align, Map<String, long[]> fields) {
    }

    private AbiProbe(int major, int minor, Map<String, Struct> structs, Map<String, Long> constants) {
        this.major = major;
        this.minor = minor;
        this.structs = structs;
        this.constants = constants;
    }

    // ------------------------------------------------------------------------------------------------ the probe

    /** A finished command: its exit status and its output, stderr merged in. */
    public record Result(int exit, String output) {

        /** The line of a compiler's output that says what went wrong (the first naming an error). */
        public String firstError() {
            return output.lines().filter(l -> l.contains("error")).findFirst().orElse(output.strip());
        }
    }

    /** The probe as gcc left it: where the binary is, and what gcc said. */
    public record Build(Path binary, Result gcc) {

        /** Whether gcc failed on one of {@code headers} (its output names it): the headers are not installed. */
        public boolean lacks(String... headers) {
            return gcc.exit() != 0 && Stream.of(headers).anyMatch(gcc.output()::contains);
        }

        /** Runs the compiled probe with {@code args} (gcc must have succeeded) and returns what it printed. */
        public String run(String... args) throws IOException, InterruptedException {
            assertThat(gcc.exit()).as("gcc failed:%n%s", gcc.output()).isZero();
            String[] command = Stream.concat(Stream.of(binary.toString()), Stream.of(args)).toArray(String[]::new);
            Result out = AbiProbe.run(binary.getParent(), command);
            assertThat(out.exit()).as("%s failed:%n%s", args.length == 0 ? "probe" : "probe " + args[0], out.output())
                    .isZero();
            return out.output();
        }
    }

    /**
     * Copies the C source {@code resource} (a test resource next to {@code owner}) into {@code work} and compiles it
     * with gcc in C standard {@code std} ({@code c11}, {@code gnu11}). Aborts the calling test without gcc; a failed
     * compile is returned, for the caller to tell missing headers ({@link Build#lacks}) from a broken probe.
     */
    public static Build compile(Class<?> owner, String resource, Path work, String std) throws Exception {
        Path source = work.resolve(resource);
        try (InputStream in = owner.getResourceAsStream(resource)) {
            Objects.requireNonNull(in, "test resource " + resource);
            Files.copy(in, source);
        }
        Path binary = work.resolve(resource.replaceFirst("\\.c$", ""));
        try {
            return new Build(binary, run(work, "gcc", "-std=" + std, "-Wall", "-o", binary.toString(),
                    source.toString()));
        } catch (IOException e) {
            return skip("gcc is not installed (" + e.getMessage() + ")");
        }
    }

    /** Reads a probe's output; {@code label} names the binding in the log line. */
    public static AbiProbe parse(String output, String label) {
        int major = -1;
        int minor = -1;
        Map<String, Struct> structs = new TreeMap<>();
        Map<String, Long> constants = new TreeMap<>();
        for (String line : output.lines().toList()) {
            String[] t = line.trim().split("\\s+");
            switch (t[0]) {
                case "version" -> {
                    major = Integer.parseInt(t[1]);
                    minor = Integer.parseInt(t[2]);
                }
                case "struct" -> structs.put(t[1], new Struct(Long.parseLong(t[2]), Long.parseLong(t[3]),
                        new TreeMap<>()));
                case "field" -> structs.get(t[1]).fields.put(t[2],
                        new long[] {Long.parseLong(t[3]), Long.parseLong(t[4])});
                case "const" -> constants.put(t[1], Long.parseLong(t[2]));
                default -> throw new AssertionError("unexpected probe line: " + line);
            }
        }
        LOG.info("{} ABI probe: {}{} structs, {} fields, {} constants", label,
                major < 0 ? "" : "headers " + major + "." + minor + ", ", structs.size(),
                structs.values().stream().mapToInt(s -> s.fields.size()).sum(), constants.size());
        return new AbiProbe(major, minor, structs, constants);
    }

    // ------------------------------------------------------------------------------------------------ checks

    /** Checks {@code layout} against the probe's struct {@code cName}: size, alignment, and every member both ways. */
    public void checkStruct(String cName, StructLayout layout) {
        Struct c = structs.get(cName);
        assertThat(c).as("the probe prints no struct %s", cName).isNotNull();
        SoftAssertions soft = new SoftAssertions();
        soft.assertThat(layout.byteSize()).as("sizeof(struct %s)", cName).isEqualTo(c.size);
        soft.assertThat(layout.byteAlignment()).as("alignof(struct %s)", cName).isEqualTo(c.align);
        Map<String, long[]> java = new TreeMap<>();
        members(layout, "", 0, java);
        java.forEach((path, offsetAndSize) -> {
            long[] field = c.fields.get(path);
            soft.assertThat(field).as("%s.%s is in the Java layout but not in the probe", cName, path).isNotNull();
            if (field != null) {
                soft.assertThat(offsetAndSize[0]).as("offsetof(%s, %s)", cName, path).isEqualTo(field[0]);
                soft.assertThat(offsetAndSize[1]).as("sizeof(%s.%s)", cName, path).isEqualTo(field[1]);
            }
        });
        soft.assertThat(java.keySet()).as("%s members the probe prints but the Java layout lacks", cName)
                .containsAll(c.fields.keySet());
        soft.assertAll();
    }

    /** Named members by dotted path, with absolute offset and size; padding is implied by the offsets. */
    private static void members(GroupLayout group, String prefix, long base, Map<String, long[]> out) {
        boolean union = !(group instanceof StructLayout);
        long offset = base;
        for (MemoryLayout member : group.memberLayouts()) {
            long at = union ? base : offset;
            if (!(member instanceof PaddingLayout)) {
                String name = member.name().orElseThrow(() -> new AssertionError("unnamed member in " + group));
                if (name.startsWith("$anon")) {
                    members((GroupLayout) member, prefix, at, out);
                } else {
                    String path = prefix + name;
                    out.put(path, new long[] {at, member.byteSize()});
                    if (member instanceof GroupLayout nested) {
                        members(nested, path + ".", at, out);
                    }
                }
            }
            offset += member.byteSize();
        }
    }

    /**
     * Compares the public {@code int} and {@code long} constants of {@code holders} with the probe's: every Java one
     * must have the header's value, and every one the probe prints must exist in Java. Returns how many were checked.
     */
    public int checkConstants(Class<?>... holders) throws IllegalAccessException {
        Map<String, Long> java = new TreeMap<>();
        for (Class<?> holder : holders) {
            for (Field f : holder.getDeclaredFields()) {
                int m = f.getModifiers();
                if (Modifier.isPublic(m) && Modifier.isStatic(m) && Modifier.isFinal(m)
                        && (f.getType() == int.class || f.getType() == long.class)) {
                    java.put(f.getName(), ((Number) f.get(null)).longValue());
                }
            }
        }
        SoftAssertions soft = new SoftAssertions();
        java.forEach((name, value) -> soft.assertThat(constants.get(name))
                .as("%s (Java %d)", name, value).isEqualTo(value));
        soft.assertThat(java.keySet()).as("constants the probe prints but the Java side lacks")
                .containsAll(constants.keySet());
        soft.assertAll();
        return java.size();
    }

    // ------------------------------------------------------------------------------------------------ enumeration

    /**
     * The {@code static StructLayout LAYOUT} of every top-level class in {@code anchor}'s package, by class (in file
     * name order): the Java side is enumerated, not listed, so a new struct type cannot escape the check.
     */
    public static Map<Class<?>, StructLayout> packageLayouts(Class<?> anchor) throws Exception {
        Map<Class<?>, StructLayout> layouts = new LinkedHashMap<>();
        for (Class<?> type : packageClasses(anchor)) {
            StructLayout layout = layoutOf(type);
            if (layout != null) {
                layouts.put(type, layout);
            }
        }
        return layouts;
    }

    /** {@code type}'s {@code static StructLayout LAYOUT}, or null when it declares none. */
    public static StructLayout layoutOf(Class<?> type) throws ReflectiveOperationException {
        Field f;
        try {
            f = type.getDeclaredField("LAYOUT");
        } catch (NoSuchFieldException e) {
            return null;
        }
        if (!Modifier.isStatic(f.getModifiers()) || !StructLayout.class.isAssignableFrom(f.getType())) {
            return null;
        }
        f.setAccessible(true);
        return (StructLayout) f.get(null);
    }

    private static List<Class<?>> packageClasses(Class<?> anchor) throws Exception {
        String pkg = anchor.getPackageName();
        URI location = anchor.getProtectionDomain().getCodeSource().getLocation().toURI();
        Path root = Path.of(location);
        List<Class<?>> classes = new ArrayList<>();
        if (Files.isDirectory(root)) {
            collect(root.resolve(pkg.replace('.', '/')), pkg, anchor.getClassLoader(), classes);
        } else {
            try (FileSystem jar = FileSystems.newFileSystem(root)) {
                collect(jar.getPath(pkg.replace('.', '/')), pkg, anchor.getClassLoader(), classes);
            }
        }
        assertThat(classes).as("classes of %s found at %s", pkg, location).contains(anchor);
        return classes;
    }

    private static void collect(Path dir, String pkg, ClassLoader loader, List<Class<?>> into) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.sorted().toList()) {
                String file = p.getFileName().toString();
                if (file.endsWith(".class") && !file.contains("$") && !file.equals("package-info.class")) {
                    into.add(Class.forName(pkg + "." + file.substring(0, file.length() - 6), false, loader));
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ plumbing

    /** Aborts the calling test (skipped, with the reason), logging why; never returns. */
    public static <T> T skip(String reason) {
        LOG.warn("skipped: {}", reason);
        return Assumptions.abort(reason);
    }

    /** Runs {@code command} in {@code dir}, at most 60 s. */
    public static Result run(Path dir, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not finish in 60 s");
        }
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }
}
