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
 * The module descriptor exports the API packages only, and nothing a user can reach through them names a type of a
 * package kept to Rivulet's own modules (the engine, loops, handshake, internal accessors).
 */
class PublicSurfaceTest {

    private static final Path CLASSES = Path.of("target", "classes");

    @Test
    void onlyTheApiPackagesAreExportedToEveryone() throws IOException {
        ModuleDescriptor d = descriptor();
        Set<String> open = d.exports().stream().filter(e -> !e.isQualified()).map(ModuleDescriptor.Exports::source)
                .collect(Collectors.toCollection(TreeSet::new));
        assertThat(open).containsExactly("dev.rivulet.core", "dev.rivulet.core.error", "dev.rivulet.core.liveness",
                "dev.rivulet.core.local", "dev.rivulet.core.memory", "dev.rivulet.core.progress",
                "dev.rivulet.core.security", "dev.rivulet.core.spi");
        assertThat(d.exports().stream().filter(ModuleDescriptor.Exports::isQualified))
                .allMatch(e -> e.targets().stream().allMatch(t -> t.startsWith("dev.rivulet.")));
    }

    @Test
    void noPublicSignatureOfTheApiNamesAnInternalType() throws Exception {
        ModuleDescriptor d = descriptor();
        Set<String> exported = d.exports().stream().filter(e -> !e.isQualified())
                .map(ModuleDescriptor.Exports::source).collect(Collectors.toSet());
        List<String> leaks = new ArrayList<>();
        List<Class<?>> api = classesIn(exported);
        assertThat(api).as("the API's classes were found").hasSizeGreaterThan(40).contains(Endpoint.class);
        for (Class<?> c : api) {
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
        assertThat(leaks).isEmpty();
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
