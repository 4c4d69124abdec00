package dev.rivulet.rdma.libfabric;

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
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks every Java layout and constant of the binding against the installed libfabric headers: a C probe
 * ({@code libfabric_abi_probe.c}, next to this class in the test resources) is compiled with gcc and run, and its
 * {@code sizeof}/{@code offsetof}/constant lines are compared with what the Java types declare.
 *
 * <p>The Java side is enumerated, not listed: every class of the package with a static {@code StructLayout LAYOUT}
 * is checked under the C name given by the layout's name, member by member (names are the C field names, nested
 * groups give dotted paths), and every constant of {@link FiConstants} is checked by reflection. In the other
 * direction, every struct and field the probe prints must have a Java counterpart, so neither side can drift
 * silently. Without gcc or the headers the test is skipped with the reason.
 */
class LibfabricAbiTest {

    private static final Logger LOG = LoggerFactory.getLogger(LibfabricAbiTest.class);

    private static final String PROBE_RESOURCE = "libfabric_abi_probe.c";

    @TempDir
    static Path work;

    private static Probe probe;

    @BeforeAll
    static void compileAndRunProbe() throws Exception {
        Path source = work.resolve(PROBE_RESOURCE);
        try (InputStream in = LibfabricAbiTest.class.getResourceAsStream(PROBE_RESOURCE)) {
            Objects.requireNonNull(in, "test resource " + PROBE_RESOURCE);
            Files.copy(in, source);
        }
        Path binary = work.resolve("libfabric_abi_probe");

        Result gcc;
        try {
            gcc = run(work, "gcc", "-std=c11", "-Wall", "-o", binary.toString(), source.toString());
        } catch (IOException e) {
            skip("gcc is not installed (" + e.getMessage() + ")");
            return;
        }
        if (gcc.exit != 0 && gcc.output.contains("rdma/fabric.h")) {
            skip("libfabric headers are not installed (apt-get install libfabric-dev): " + firstLine(gcc.output));
        }
        assertThat(gcc.exit).as("gcc failed:%n%s", gcc.output).isZero();

        Result out = run(work, binary.toString());
        assertThat(out.exit).as("probe failed:%n%s", out.output).isZero();
        probe = Probe.parse(out.output);
    }

    @Test
    void headersAreTheVersionTheLayoutsWereWrittenFor() {
        // Another libfabric's headers may legitimately differ (1.20 grows fi_domain_attr); the runtime is pinned
        // to the FABRIC_1.3 ABI, so compare only like with like and say so.
        String header = probe.major + "." + probe.minor;
        String binding = FiConstants.FI_MAJOR_VERSION + "." + FiConstants.FI_MINOR_VERSION;
        if (!header.equals(binding)) {
            skip("installed headers are libfabric " + header + ", the binding's layouts describe " + binding);
        }
    }

    @TestFactory
    Stream<DynamicTest> everyJavaStructMatchesTheHeaders() throws Exception {
        assumeSameVersion();
        return javaLayouts().entrySet().stream().map(e -> DynamicTest.dynamicTest(
                e.getKey() + " (" + e.getValue().getSimpleName() + ")",
                () -> checkStruct(e.getKey(), layoutOf(e.getValue()))));
    }

    @Test
    void everyProbedStructHasAJavaType() throws Exception {
        assumeSameVersion();
        assertThat(javaLayouts().keySet()).containsExactlyInAnyOrderElementsOf(probe.structs.keySet());
    }

    @Test
    void everyConstantMatchesTheHeaders() throws Exception {
        assumeSameVersion();
        Map<String, Long> java = new TreeMap<>();
        for (Field f : FiConstants.class.getDeclaredFields()) {
            int m = f.getModifiers();
            if (Modifier.isPublic(m) && Modifier.isStatic(m) && Modifier.isFinal(m)) {
                java.put(f.getName(), ((Number) f.get(null)).longValue());
            }
        }
        SoftAssertions soft = new SoftAssertions();
        java.forEach((name, value) -> soft.assertThat(probe.constants.get(name))
                .as("%s (Java %d)", name, value).isEqualTo(value));
        soft.assertThat(java.keySet()).as("constants the probe prints but FiConstants lacks")
                .containsAll(probe.constants.keySet());
        soft.assertAll();
        LOG.info("ABI probe: {} constants checked", java.size());
    }

    // ------------------------------------------------------------------------------------------------ checks

    private static void checkStruct(String cName, StructLayout layout) {
        Probe.Struct c = probe.structs.get(cName);
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
                String path = prefix + name;
                out.put(path, new long[] {at, member.byteSize()});
                if (member instanceof GroupLayout nested) {
                    members(nested, path + ".", at, out);
                }
            }
            offset += member.byteSize();
        }
    }

    // ------------------------------------------------------------------------------------------------ enumeration

    /** C struct name → Java class, for every class of the binding's package that declares a StructLayout LAYOUT. */
    private static Map<String, Class<?>> javaLayouts() throws Exception {
        Map<String, Class<?>> byName = new TreeMap<>();
        for (Class<?> type : packageClasses()) {
            Field f;
            try {
                f = type.getDeclaredField("LAYOUT");
            } catch (NoSuchFieldException e) {
                continue;
            }
            if (Modifier.isStatic(f.getModifiers()) && StructLayout.class.isAssignableFrom(f.getType())) {
                String cName = layoutOf(type).name()
                        .orElseThrow(() -> new AssertionError(type + ".LAYOUT has no C name"));
                assertThat(byName.put(cName, type)).as("two Java types for struct %s", cName).isNull();
            }
        }
        return byName;
    }

    private static StructLayout layoutOf(Class<?> type) throws ReflectiveOperationException {
        Field f = type.getDeclaredField("LAYOUT");
        f.setAccessible(true);
        return (StructLayout) f.get(null);
    }

    private static List<Class<?>> packageClasses() throws Exception {
        String pkg = FiInfo.class.getPackageName();
        URI location = FiInfo.class.getProtectionDomain().getCodeSource().getLocation().toURI();
        Path root = Path.of(location);
        List<Class<?>> classes = new ArrayList<>();
        if (Files.isDirectory(root)) {
            collect(root.resolve(pkg.replace('.', '/')), pkg, classes);
        } else {
            try (FileSystem jar = FileSystems.newFileSystem(root)) {
                collect(jar.getPath(pkg.replace('.', '/')), pkg, classes);
            }
        }
        assertThat(classes).as("classes of %s found at %s", pkg, location).contains(FiInfo.class);
        return classes;
    }

    private static void collect(Path dir, String pkg, List<Class<?>> into) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.sorted().toList()) {
                String file = p.getFileName().toString();
                if (file.endsWith(".class") && !file.contains("$") && !file.equals("package-info.class")) {
                    into.add(Class.forName(pkg + "." + file.substring(0, file.length() - 6), false,
                            FiInfo.class.getClassLoader()));
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ plumbing

    private static void assumeSameVersion() {
        Assumptions.assumeTrue(
                probe.major == FiConstants.FI_MAJOR_VERSION && probe.minor == FiConstants.FI_MINOR_VERSION,
                "installed headers are libfabric " + probe.major + "." + probe.minor);
    }

    private static void skip(String reason) {
        LOG.warn("skipped: {}", reason);
        Assumptions.abort(reason);
    }

    private static String firstLine(String s) {
        return s.lines().filter(l -> l.contains("error")).findFirst().orElse(s.strip());
    }

    private record Result(int exit, String output) {
    }

    private static Result run(Path dir, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not finish in 60 s");
        }
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    /** The parsed probe output. */
    private static final class Probe {
        int major = -1;
        int minor = -1;
        final Map<String, Struct> structs = new TreeMap<>();
        final Map<String, Long> constants = new TreeMap<>();

        record Struct(long size, long align, Map<String, long[]> fields) {
        }

        static Probe parse(String output) {
            Probe p = new Probe();
            for (String line : output.lines().toList()) {
                String[] t = line.trim().split("\\s+");
                switch (t[0]) {
                    case "version" -> {
                        p.major = Integer.parseInt(t[1]);
                        p.minor = Integer.parseInt(t[2]);
                    }
                    case "struct" -> p.structs.put(t[1], new Struct(Long.parseLong(t[2]), Long.parseLong(t[3]),
                            new TreeMap<>()));
                    case "field" -> p.structs.get(t[1]).fields.put(t[2],
                            new long[] {Long.parseLong(t[3]), Long.parseLong(t[4])});
                    case "const" -> p.constants.put(t[1], Long.parseLong(t[2]));
                    default -> throw new AssertionError("unexpected probe line: " + line);
                }
            }
            assertThat(p.major).as("probe printed no version line").isPositive();
            LOG.info("ABI probe: libfabric headers {}.{}, {} structs, {} fields, {} constants", p.major, p.minor,
                    p.structs.size(), p.structs.values().stream().mapToInt(s -> s.fields.size()).sum(),
                    p.constants.size());
            return p;
        }
    }
}
