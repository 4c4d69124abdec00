package dev.rivulet.core.memory;

import dev.rivulet.core.error.InvalidRequestException;

/**
 * One get of a streamed bulk read ({@code Endpoint.get(Publisher<RemoteRead>)}): the peer's memory at {@code remote}
 * is read into {@code local}. A plain value; the endpoint checks it (registration, bounds) when it takes it from the
 * stream, exactly as it checks a single get.
 *
 * @param remote the source window, at least {@code local.length()} bytes
 * @param local  registered destination memory, the caller's again once the stream has ended
 */
public record RemoteRead(RemoteMemory remote, RegisteredSlice local) {

    public RemoteRead {
        if (remote == null || local == null) {
            throw new InvalidRequestException("remote memory and local slice must not be null");
        }
    }
}
