package dev.rivulet.core.spi;

import dev.rivulet.core.error.InvalidRequestException;
import org.jspecify.annotations.Nullable;

import java.net.URI;

/**
 * The first step of reading a transport address, whatever its shape ({@code local://name},
 * {@code scheme://host:port}): the text as a URI, refused with the same {@link InvalidRequestException} texts by
 * every transport, {@code address is null} or {@code not a URI: <address>}. What the URI must hold beyond that is
 * the transport's to check (see {@link HostPortAddress}).
 */
public final class AddressUri {

    private AddressUri() {
    }

    /** {@code address} as a URI, or an {@link InvalidRequestException} when it is null or not one. */
    public static URI parse(@Nullable String address) {
        if (address == null) {
            throw new InvalidRequestException("address is null");
        }
        try {
            return URI.create(address);
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException("not a URI: " + address);
        }
    }
}
