package dev.rivulet.core.local;

import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.spi.AddressUri;

import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The JVM-wide name service of the in-JVM transport: which listener is bound at which {@code local://} name. */
final class LocalFabric {

    private static final Map<String, LocalListener> LISTENERS = new ConcurrentHashMap<>();

    private LocalFabric() {
    }

    /** {@code local://orders} gives {@code orders}. */
    static String nameOf(String address) {
        URI uri = AddressUri.parse(address);
        if (!"local".equals(uri.getScheme()) || uri.getAuthority() == null || uri.getAuthority().isEmpty()) {
            throw new InvalidRequestException("local transport addresses look like local://name, got " + address);
        }
        return uri.getAuthority();
    }

    static boolean bind(String name, LocalListener l) {
        return LISTENERS.putIfAbsent(name, l) == null;
    }

    static void unbind(String name, LocalListener l) {
        LISTENERS.remove(name, l);
    }

    static LocalListener lookup(String name) {
        return LISTENERS.get(name);
    }
}
