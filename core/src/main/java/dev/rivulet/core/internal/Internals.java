package dev.rivulet.core.internal;

import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.security.SecuritySettings;

import java.util.Objects;

/**
 * The bridge to package-private operations of Rivulet's API types (the JDK's "shared secrets" pattern): an API
 * package installs its accessor when its classes initialise, and the engine and backends call through it. Users never
 * see these operations: the API types keep them package-private, and this package is exported only to Rivulet's own
 * modules.
 */
public final class Internals {

    private static volatile MemoryAccess memory;
    private static volatile SecurityAccess security;

    private Internals() {
    }

    /** Called once by {@code dev.rivulet.core.memory} as it initialises. */
    public static void install(MemoryAccess access) {
        memory = Objects.requireNonNull(access);
    }

    /** Called once by {@code dev.rivulet.core.security} as it initialises. */
    public static void install(SecurityAccess access) {
        security = Objects.requireNonNull(access);
    }

    public static SecurityAccess security() {
        SecurityAccess s = security;
        if (s == null) {
            initialise(SecuritySettings.class);
            s = security;
        }
        return s;
    }

    public static MemoryAccess memory() {
        MemoryAccess m = memory;
        if (m == null) {
            initialise(MemoryDomain.class);
            m = memory;
        }
        return m;
    }

    private static void initialise(Class<?> c) {
        try {
            Class.forName(c.getName(), true, c.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }
}
