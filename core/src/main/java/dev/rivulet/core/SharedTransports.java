package dev.rivulet.core;

import dev.rivulet.core.error.InvalidRequestException;

import java.util.function.UnaryOperator;

/**
 * The JVM's shared {@link TransportResources}: what clients and servers use when they are given no resources, no
 * transport and no configuration of their own, as Reactor Netty's {@code HttpResources} share event loops. Opened on
 * first use (default settings unless {@link Transports#configureShared} said otherwise) and disposed when the JVM
 * exits or {@link Transports#disposeShared()} is called; after that, the next use opens new ones with the same
 * configuration.
 */
final class SharedTransports {

    private static final String NAME = "shared";
    private static TransportResources current = TransportResources.create(NAME);
    private static boolean hookInstalled;

    private SharedTransports() {
    }

    /** The shared transport for {@code address}, opened now if needed (may block: call it off polling threads). */
    static Transport forAddress(String address) {
        TransportResources r;
        synchronized (SharedTransports.class) {
            if (!hookInstalled) {
                hookInstalled = true;
                Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("rivulet-shared-shutdown").unstarted(
                        SharedTransports::disposeAll));
            }
            r = current;
        }
        return r.forAddress(address);
    }

    /** The shared resources from now on have {@code change} applied to the defaults; refused while any is open. */
    static synchronized void configure(UnaryOperator<TransportConfig> change) {
        if (current.isInUse()) {
            throw new InvalidRequestException("the shared transports are open already (" + current.name() + "): "
                    + "configure them before first use, or after Transports.disposeShared()");
        }
        current = TransportResources.create(NAME, change);
    }

    /** The shared resources' configuration. */
    static synchronized TransportConfig config() {
        return current.config();
    }

    /** Disposes every shared transport (closing their endpoints); the next use opens new ones, configured alike. */
    static void disposeAll() {
        TransportResources old;
        synchronized (SharedTransports.class) {
            old = current;
            TransportConfig c = old.config();
            current = TransportResources.create(NAME, d -> c);
        }
        old.dispose();
    }
}
