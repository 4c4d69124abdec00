package dev.rivulet.rio.stream;

import dev.rivulet.core.error.InvalidRequestException;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;

/**
 * {@code scheme://host:port} addresses of the stream transports ({@code uring://}, {@code rio://}): IPv4, IPv6 in
 * brackets ({@code uring://[::1]:0}), or a host name.
 */
public final class StreamAddress {

    private StreamAddress() {
    }

    public static InetSocketAddress parse(String scheme, String address) {
        if (address == null) {
            throw new InvalidRequestException("address is null");
        }
        URI uri;
        try {
            uri = URI.create(address);
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException("not a URI: " + address);
        }
        if (!scheme.equals(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 0) {
            throw new InvalidRequestException("addresses look like " + scheme + "://host:port or " + scheme
                    + "://[::1]:port, got " + address);
        }
        try {
            return new InetSocketAddress(InetAddress.getByName(uri.getHost()), uri.getPort());
        } catch (UnknownHostException e) {
            throw new InvalidRequestException("unknown host in " + address + ": " + e.getMessage());
        }
    }

    public static String format(String scheme, InetSocketAddress a) {
        InetAddress ip = a.getAddress();
        String host = ip.getHostAddress();
        if (ip instanceof Inet6Address) {
            int scope = host.indexOf('%');
            host = "[" + (scope >= 0 ? host.substring(0, scope) : host) + "]";
        }
        return scheme + "://" + host + ":" + a.getPort();
    }
}
