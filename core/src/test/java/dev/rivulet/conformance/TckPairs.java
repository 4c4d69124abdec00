package dev.rivulet.conformance;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.error.TransportUnavailableException;
import org.testng.SkipException;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The two transports a TCK verification class runs on, and every pair it connected between them: the TCK wants a
 * fresh publisher or subscriber per rule, so each gets a fresh pair; all are closed together after the class.
 */
final class TckPairs {

    private final Function<TransportConfig, Transport> open;
    private Transport server;
    private Transport client;
    private final List<Pair> pairs = new ArrayList<>();

    TckPairs(Function<TransportConfig, Transport> open) {
        this.open = open;
    }

    /** Opens both transports; one that is unavailable here skips the class (or fails it, where required). */
    void open() {
        try {
            server = open.apply(TransportConfig.defaults());
            client = open.apply(TransportConfig.defaults());
        } catch (TransportUnavailableException e) {
            String provider = Requirements.providerNamedIn(e.getMessage());
            if (provider != null && Requirements.isRequired(provider)) {
                throw e;
            }
            throw new SkipException("transport unavailable here: " + e.getMessage());
        }
    }

    Transport server() {
        return server;
    }

    /** A new pair connected through {@code address}. */
    Pair connect(String address) {
        Pair p = Pair.connect(server, client, address);
        pairs.add(p);
        return p;
    }

    /** The pair connected last. */
    Pair latest() {
        return pairs.getLast();
    }

    void close() {
        pairs.forEach(Pair::close);
        if (client != null) {
            client.dispose();
        }
        if (server != null) {
            server.dispose();
        }
    }
}
