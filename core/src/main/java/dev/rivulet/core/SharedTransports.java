package dev.rivulet.core;

import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.spi.TransportProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The transports clients and servers share when they are not given one ({@code runOn}) or a configuration of their
 * own, as Reactor Netty's {@code HttpResources} share event loops: one per provider and per set of options an address
 * implies (libfabric's provider), opened on first use with default settings, and disposed when the JVM exits or
 * {@link Transports#disposeShared()} is called. A disposed shared transport is replaced on next use.
 */
final class SharedTransports {

    private static final Logger log = LoggerFactory.getLogger(SharedTransports.class);
    private static final Map<String, Transport> SHARED = new LinkedHashMap<>();
    private static boolean hookInstalled;

    private SharedTransports() {
    }

    /** The shared transport for {@code address}, opened now if needed (may block: call it off polling threads). */
    static synchronized Transport forAddress(String address) {
        TransportProvider p = Transports.forAddress(address).orElseThrow(() -> new InvalidRequestException(
                "no provider for address " + address + "; known: " + Transports.describe()));
        Map<String, String> implied = new TreeMap<>(p.optionsFor(address));
        String key = p.name() + implied.values().stream().map(v -> "-" + v).collect(Collectors.joining());
        Transport t = SHARED.get(key);
        if (t != null && !t.isDisposed()) {
            return t;
        }
        TransportConfig config = TransportConfig.defaults().name("shared-" + key.replace('/', '-')).options(implied);
        t = Transports.open(p.name(), config);
        SHARED.put(key, t);
        if (!hookInstalled) {
            hookInstalled = true;
            Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("rivulet-shared-shutdown").unstarted(
                    SharedTransports::disposeAll));
        }
        return t;
    }

    /** Disposes every shared transport (closing their endpoints); the next use opens new ones. */
    static void disposeAll() {
        List<Transport> all;
        synchronized (SharedTransports.class) {
            all = new ArrayList<>(SHARED.values());
            SHARED.clear();
        }
        for (Transport t : all) {
            try {
                t.dispose();
            } catch (RuntimeException e) {
                log.warn("closing shared transport {} failed", t.id(), e);
            }
        }
    }
}
