package dev.rivulet.core.spi;

import dev.rivulet.core.error.InvalidRequestException;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;

/**
 * An address of the form {@code scheme://host:port[?query]}, as the network transports take them: the host an IPv4
 * address, a host name, or an IPv6 address in brackets ({@code uring://[::1]:7000}); the port 0 to 65535 (0 binds an
 * ephemeral port); the query, where there is one, the transport's to read.
 *
 * <p>Every refusal is an {@link InvalidRequestException}: {@code address is null}, {@code not a URI: ...}, or the
 * shape the transport expects followed by {@code , got <address>}.
 */
public final class HostPortAddress {

    private final String text;
    private final String host;
    private final int port;
    private final String query;

    private HostPortAddress(String text, String host, int port, String query) {
        this.text = text;
        this.host = host;
        this.port = port;
        this.query = query;
    }

    /**
     * Parses {@code address}, which must use {@code scheme}.
     *
     * @param form what such addresses look like, for the message of a refusal, e.g. {@code "libfabric addresses look
     *             like fabric://host:port?provider=tcp"}
     */
    public static HostPortAddress parse(String address, String scheme, String form) {
        URI uri = AddressUri.parse(address);
        if (!scheme.equals(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 0) {
            throw new InvalidRequestException(form + ", got " + address);
        }
        String host = uri.getHost();
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        String query = uri.getRawQuery() == null || uri.getRawQuery().isEmpty() ? "" : uri.getQuery();
        return new HostPortAddress(address, host, uri.getPort(), query);
    }

    /** The host as written, without the brackets of an IPv6 address. */
    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    /** The decoded query after {@code ?}, or the empty string when there is none. */
    public String query() {
        return query;
    }

    /** The host resolved (a literal address needs no lookup) with the port. */
    public InetSocketAddress resolve() {
        try {
            return new InetSocketAddress(InetAddress.getByName(host), port);
        } catch (UnknownHostException e) {
            throw new InvalidRequestException("unknown host in " + text + ": " + e.getMessage());
        }
    }

    /** {@code scheme://host:port}, the host in brackets when it is an IPv6 address; {@code query} appended when set. */
    public static String format(String scheme, String host, int port, String query) {
        String h = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
        return scheme + "://" + h + ":" + port + (query == null || query.isEmpty() ? "" : "?" + query);
    }

    /** {@code scheme://ip:port} of a socket address, an IPv6 address without its scope (not part of the syntax). */
    public static String format(String scheme, InetSocketAddress address) {
        InetAddress ip = address.getAddress();
        String host = ip.getHostAddress();
        if (ip instanceof Inet6Address) {
            int scope = host.indexOf('%');
            host = scope >= 0 ? host.substring(0, scope) : host;
        }
        return format(scheme, host, address.getPort(), "");
    }

    @Override
    public String toString() {
        return text;
    }
}
