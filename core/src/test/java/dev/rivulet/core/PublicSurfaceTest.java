package dev.rivulet.core;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the module descriptor exports, and to whom: the application API and the incubating transport SPI to everyone,
 * the internal accessors only to Rivulet's own modules. Nothing an application reaches through the API names an SPI
 * or internal type, and nothing a third-party transport reaches through the SPI names an internal one.
 */
class PublicSurfaceTest {

    private static final Path CLASSES = Path.of("target", "classes");
    private static final Path SOURCES = Path.of("src", "main", "java");

    /** What applications use; compatible across minor releases. */
    private static final Set<String> API = Set.of("dev.rivulet.core", "dev.rivulet.core.error",
            "dev.rivulet.core.interaction", "dev.rivulet.core.liveness", "dev.rivulet.core.local",
            "dev.rivulet.core.memory", "dev.rivulet.core.progress", "dev.rivulet.core.resume",
            "dev.rivulet.core.security", "dev.rivulet.core.spi");
    /** What transports build on, Rivulet's and third parties': exported, but incubating. */
    private static final Set<String> SPI = Set.of("dev.rivulet.core.admission", "dev.rivulet.core.engine",
            "dev.rivulet.core.credit", "dev.rivulet.core.engine.wire", "dev.rivulet.core.remote",
            "dev.rivulet.core.handshake", "dev.rivulet.core.loop",
            "dev.rivulet.core.metrics");

    @Test
    void theApiAndTheIncubatingSpiAreExportedToEveryoneAndNothingElse() throws IOException {
        ModuleDescriptor d = descriptor();
        Set<String> open = d.exports().stream().filter(e -> !e.isQualified()).map(ModuleDescriptor.Exports::source)
                .collect(Collectors.toCollection(TreeSet::new));
        Set<String> expected = new TreeSet<>(API);
        expected.addAll(SPI);
        assertThat(open).isEqualTo(expected);
    }

    @Test
    void theInternalAccessorsAndTheNativeLayerAreExportedOnlyToRivuletsOwnModules() throws IOException {
        List<ModuleDescriptor.Exports> qualified = descriptor().exports().stream()
                .filter(ModuleDescriptor.Exports::isQualified).toList();
        assertThat(qualified).extracting(ModuleDescriptor.Exports::source)
                .containsExactlyInAnyOrder("dev.rivulet.core.internal", "dev.rivulet.core.sys");
        assertThat(qualified).allMatch(e -> e.targets().stream().allMatch(t -> t.startsWith("dev.rivulet.")));
    }

    @Test
    void everySpiPackageSaysItIsIncubating() throws IOException {
        for (String pkg : SPI) {
            String info = Files.readString(packageInfo(pkg));
            assertThat(info).as(pkg).contains("@Incubating").containsIgnoringCase("incubating");
        }
        for (String pkg : API) {
            assertThat(Files.readString(packageInfo(pkg))).as(pkg).doesNotContain("@Incubating\npackage");
        }
    }

    @Test
    void everyPackageIsNullMarked() throws IOException {
        try (Stream<Path> dirs = Files.walk(SOURCES)) {
            for (Path dir : dirs.filter(Files::isDirectory).toList()) {
                boolean hasClasses;
                try (Stream<Path> files = Files.list(dir)) {
                    hasClasses = files.anyMatch(f -> f.toString().endsWith(".java"));
                }
                if (hasClasses && !dir.equals(SOURCES)) {
                    Path info = dir.resolve("package-info.java");
                    assertThat(info).as("package-info of %s", dir).exists();
                    assertThat(Files.readString(info)).as(info.toString()).contains("@NullMarked");
                }
            }
        }
    }

    @Test
    void noPublicSignatureOfTheApiNamesAnSpiOrInternalType() throws Exception {
        List<Class<?>> api = classesIn(API);
        assertThat(api).as("the API's classes were found").hasSizeGreaterThan(40).contains(Endpoint.class);
        assertThat(leaks(api, API)).isEmpty();
    }

    @Test
    void noPublicSignatureOfTheSpiNamesAnInternalType() throws Exception {
        Set<String> visible = new TreeSet<>(API);
        visible.addAll(SPI);
        List<Class<?>> spi = classesIn(SPI);
        assertThat(spi).as("the SPI's classes were found").hasSizeGreaterThan(20);
        assertThat(leaks(spi, visible)).isEmpty();
    }

    private static boolean markedIncubating(String pkg) throws IOException {
        return Files.readString(packageInfo(pkg)).lines().anyMatch(l -> l.strip().equals("@Incubating"));
    }

    private static Path packageInfo(String pkg) {
        return SOURCES.resolve(pkg.replace('.', '/')).resolve("package-info.java");
    }

    /** Where a public or protected signature of {@code classes} names a Rivulet type outside {@code exported}. */
    private static List<String> leaks(List<Class<?>> classes, Set<String> exported) {
        List<String> leaks = new ArrayList<>();
        for (Class<?> c : classes) {
            if (!Modifier.isPublic(c.getModifiers())) {
                continue;
            }
            List<Executable> members = new ArrayList<>(List.of(c.getDeclaredMethods()));
            members.addAll(List.of(c.getDeclaredConstructors()));
            for (Executable m : members) {
                if (!visible(m.getModifiers()) || m.isSynthetic()) {
                    continue;
                }
                List<Type> types = new ArrayList<>(List.of(m.getGenericParameterTypes()));
                if (m instanceof Method method) {
                    types.add(method.getGenericReturnType());
                }
                for (Type t : types) {
                    internal(t, exported).ifPresent(name -> leaks.add(c.getName() + "." + m.getName() + " uses "
                            + name));
                }
            }
            for (Field f : c.getDeclaredFields()) {
                if (visible(f.getModifiers())) {
                    internal(f.getGenericType(), exported).ifPresent(name -> leaks.add(c.getName() + "."
                            + f.getName() + " is a " + name));
                }
            }
            Type sup = c.getGenericSuperclass();
            if (sup != null) {
                internal(sup, exported).ifPresent(name -> leaks.add(c.getName() + " extends " + name));
            }
        }
        return leaks;
    }

    private static boolean visible(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    /** The first Rivulet type in {@code t} whose package is not exported to everyone. */
    private static java.util.Optional<String> internal(Type t, Set<String> exported) {
        if (t instanceof Class<?> c) {
            while (c.isArray()) {
                c = c.getComponentType();
            }
            String pkg = c.getPackageName();
            return pkg.startsWith("dev.rivulet") && !exported.contains(pkg) ? java.util.Optional.of(c.getName())
                    : java.util.Optional.empty();
        }
        if (t instanceof ParameterizedType p) {
            java.util.Optional<String> raw = internal(p.getRawType(), exported);
            if (raw.isPresent()) {
                return raw;
            }
            for (Type a : p.getActualTypeArguments()) {
                java.util.Optional<String> arg = internal(a, exported);
                if (arg.isPresent()) {
                    return arg;
                }
            }
        }
        if (t instanceof WildcardType w) {
            for (Type b : w.getUpperBounds()) {
                java.util.Optional<String> bound = internal(b, exported);
                if (bound.isPresent()) {
                    return bound;
                }
            }
        }
        return java.util.Optional.empty();
    }

    private static List<Class<?>> classesIn(Set<String> packages) throws IOException, ClassNotFoundException {
        List<Class<?>> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(CLASSES)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                String name = CLASSES.relativize(p).toString().replace('/', '.').replaceAll("\\.class$", "");
                if (name.equals("module-info")) {
                    continue;
                }
                String pkg = name.substring(0, name.lastIndexOf('.'));
                if (packages.contains(pkg)) {
                    out.add(Class.forName(name, false, PublicSurfaceTest.class.getClassLoader()));
                }
            }
        }
        return out;
    }

    private static ModuleDescriptor descriptor() throws IOException {
        try (InputStream in = Files.newInputStream(CLASSES.resolve("module-info.class"))) {
            return ModuleDescriptor.read(in);
        }
    }
}
