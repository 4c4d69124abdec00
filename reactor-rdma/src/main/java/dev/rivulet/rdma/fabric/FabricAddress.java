package dev.rivulet.rdma.fabric;

import dev.rivulet.core.error.InvalidRequestException;

import java.net.URI;
import java.util.HashMap;
import java.util.Map;

/**
 * {@code fabric://host:port?provider=tcp}: where the out-of-band bootstrap listens (plain TCP) and which libfabric
 * provider both sides use. Port 0 binds an ephemeral port.
 */
record FabricAddress(String host, int port, String provider) {

    static final String SCHEME = "fabric";

    static FabricAddress parse(String address, String defaultProvider) {
        if (address == null) {
            throw new InvalidRequestException("address is null");
        }
        URI uri;
        try {
            uri = URI.create(address);
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException("not a URI: " + address);
        }
        if (!SCHEME.equals(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 0) {
            throw new InvalidRequestException("libfabric addresses look like fabric://host:port?provider=tcp, got "
                    + address);
        }
        Map<String, String> q = new HashMap<>();
        if (uri.getQuery() != null) {
            for (String kv : uri.getQuery().split("&")) {
                int i = kv.indexOf('=');
                if (i > 0) {
                    q.put(kv.substring(0, i), kv.substring(i + 1));
                }
            }
        }
        return new FabricAddress(uri.getHost(), uri.getPort(), q.getOrDefault("provider", defaultProvider));
    }

    String uri() {
        String h = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
        return SCHEME + "://" + h + ":" + port + "?provider=" + provider;
    }
}
