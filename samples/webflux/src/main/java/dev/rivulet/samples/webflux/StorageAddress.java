package dev.rivulet.samples.webflux;

import dev.rivulet.core.Transports;
import dev.rivulet.core.spi.TransportProvider;

/**
 * The storage node's address: where it listens ({@code listen}, possibly with port 0) and where a front connects.
 * Without {@code blocks.address}, the default address of {@code blocks.transport}, or of the best transport of this
 * machine: libfabric {@code tcp} where libfabric is installed, then io_uring, then (one process running both roles
 * only) the in-JVM transport.
 */
public record StorageAddress(String listen, String connect) {

    static StorageAddress resolve(BlockServiceProperties p) {
        if (!p.address().isBlank()) {
            return new StorageAddress(p.address(), p.address());
        }
        String chosen = switch (p.transport()) {
            case "libfabric" -> "fabric://127.0.0.1:7070?provider=tcp";
            case "io_uring" -> "uring://127.0.0.1:7070";
            case "local" -> "local://blocks";
            case "" -> available("libfabric") ? "fabric://127.0.0.1:7070?provider=tcp"
                    : available("io_uring") ? "uring://127.0.0.1:7070"
                    : p.role().equals("both") ? "local://blocks" : null;
            default -> throw new IllegalStateException("blocks.transport must be libfabric, io_uring or local, not '"
                    + p.transport() + "'");
        };
        if (chosen == null) {
            throw new IllegalStateException("no network transport here (" + Transports.describe() + "): set "
                    + "blocks.address, or run both roles in one process");
        }
        return new StorageAddress(chosen, chosen);
    }

    private static boolean available(String provider) {
        return Transports.provider(provider).map(TransportProvider::availability).map(a -> a.available())
                .orElse(false);
    }
}
