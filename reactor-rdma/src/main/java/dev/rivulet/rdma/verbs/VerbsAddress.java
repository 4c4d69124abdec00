package dev.rivulet.rdma.verbs;

import dev.rivulet.core.TransportOption;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.spi.HostPortAddress;
import dev.rivulet.rdma.VerbsOptions;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code verbs://host:port?device=mlx5_0&port=1&gid_index=3&connection=manual}: where the bootstrap listener is (plain
 * TCP; with {@code rdmacm} connections the host must be an address of the RDMA interface, IPoIB or the RoCE NIC's,
 * since rdma_cm resolves it to a device) and, in the query, the transport options the address implies. Port 0 binds an
 * ephemeral port.
 *
 * @param options the options the query names, by option key ({@code verbs.device}...), values checked
 */
record VerbsAddress(String host, int port, Map<String, String> options) {

    static final String SCHEME = "verbs";

    /** Query parameter → the option it sets. */
    static final Map<String, TransportOption<?>> PARAMETERS = Map.of(
            "device", VerbsOptions.DEVICE,
            "port", VerbsOptions.PORT,
            "gid_index", VerbsOptions.GID_INDEX,
            "connection", VerbsOptions.CONNECTION);

    VerbsAddress {
        options = Map.copyOf(options);
    }

    static VerbsAddress parse(String address) {
        HostPortAddress a = HostPortAddress.parse(address, SCHEME,
                "ibverbs addresses look like verbs://host:port?device=mlx5_0&port=1");
        Map<String, String> options = new TreeMap<>();
        if (!a.query().isEmpty()) {
            for (String kv : a.query().split("&")) {
                int i = kv.indexOf('=');
                String name = i < 0 ? kv : kv.substring(0, i);
                TransportOption<?> option = PARAMETERS.get(name);
                if (option == null) {
                    throw new InvalidRequestException("unknown parameter '" + name + "' in " + address + "; known: "
                            + String.join(", ", new TreeMap<>(PARAMETERS).keySet()));
                }
                if (options.containsKey(option.key())) {
                    throw new InvalidRequestException("parameter '" + name + "' given twice in " + address);
                }
                String value = i < 0 ? "" : kv.substring(i + 1);
                option.parse(value); // checked here, so a bad address fails before anything opens
                options.put(option.key(), value.trim());
            }
        }
        return new VerbsAddress(a.host(), a.port(), options);
    }

    /** Every option an address implies, the ones it does not name at their defaults (for transport sharing). */
    Map<String, String> impliedOptions() {
        Map<String, String> all = new LinkedHashMap<>();
        for (TransportOption<?> o : new TreeMap<>(PARAMETERS).values()) {
            all.put(o.key(), options.getOrDefault(o.key(), String.valueOf(o.defaultValue())));
        }
        return all;
    }

    /** The address as text; {@code query} is appended as given (it names what a client must match). */
    static String uri(String host, int port, String query) {
        return HostPortAddress.format(SCHEME, host, port, query);
    }
}
