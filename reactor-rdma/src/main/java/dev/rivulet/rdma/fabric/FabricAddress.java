package dev.rivulet.rdma.fabric;

import dev.rivulet.core.spi.HostPortAddress;

import java.util.HashMap;
import java.util.Map;

/**
 * {@code fabric://host:port?provider=tcp}: where the out-of-band bootstrap listens (plain TCP) and which libfabric
 * provider both sides use. Port 0 binds an ephemeral port; the host is kept without the brackets of an IPv6 address.
 */
record FabricAddress(String host, int port, String provider) {

    static final String SCHEME = "fabric";

    static FabricAddress parse(String address, String defaultProvider) {
        HostPortAddress a = HostPortAddress.parse(address, SCHEME,
                "libfabric addresses look like fabric://host:port?provider=tcp");
        Map<String, String> q = new HashMap<>();
        if (!a.query().isEmpty()) {
            for (String kv : a.query().split("&")) {
                int i = kv.indexOf('=');
                if (i > 0) {
                    q.put(kv.substring(0, i), kv.substring(i + 1));
                }
            }
        }
        return new FabricAddress(a.host(), a.port(), q.getOrDefault("provider", defaultProvider));
    }

    String uri() {
        return HostPortAddress.format(SCHEME, host, port, "provider=" + provider);
    }
}
