package dev.rivulet.rio.stream;

import dev.rivulet.core.spi.HostPortAddress;

import java.net.InetSocketAddress;

/**
 * {@code scheme://host:port} addresses of the stream transports ({@code uring://}, {@code rio://}): IPv4, IPv6 in
 * brackets ({@code uring://[::1]:0}), or a host name, resolved when parsed.
 */
public final class StreamAddress {

    private StreamAddress() {
    }

    public static InetSocketAddress parse(String scheme, String address) {
        return HostPortAddress.parse(address, scheme, "addresses look like " + scheme + "://host:port or " + scheme
                + "://[::1]:port").resolve();
    }

    public static String format(String scheme, InetSocketAddress a) {
        return HostPortAddress.format(scheme, a);
    }
}
