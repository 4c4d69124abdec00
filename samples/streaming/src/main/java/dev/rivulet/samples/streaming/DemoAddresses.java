package dev.rivulet.samples.streaming;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Where the demo binds its server, per transport provider ({@link dev.rivulet.core.spi.TransportProvider#name()}).
 *
 * <p>The client always connects to the address the bound server reports ({@code Listener.address()}), so a provider
 * that binds an ephemeral port ({@code :0}) works without further changes. Adding a backend to the demo is one line
 * here, for example:
 *
 * <pre>{@code
 * "libfabric" -> "fabric://127.0.0.1:0?provider=tcp"
 * "io_uring"  -> "uring://127.0.0.1:0"
 * }</pre>
 */
public final class DemoAddresses {

    private static final Map<String, String> BIND;

    static {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("libfabric", "fabric://127.0.0.1:0?provider=tcp");
        m.put("io_uring", "uring://127.0.0.1:0");
        m.put("rio", "rio://127.0.0.1:0");
        m.put("local", "local://demo");
        BIND = Collections.unmodifiableMap(m);
    }

    private DemoAddresses() {
    }

    /** The bind address the demo uses for {@code provider}, if it knows one. */
    public static Optional<String> bindAddress(String provider) {
        return Optional.ofNullable(BIND.get(provider));
    }

    /** Providers the demo has an address for. */
    public static Set<String> providers() {
        return BIND.keySet();
    }
}
