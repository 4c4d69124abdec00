package dev.rivulet.core.memory;

import dev.rivulet.core.error.InvalidRequestException;

/**
 * One put of a streamed bulk write ({@code Endpoint.put(Publisher<RemoteWrite>)}): {@code local} is written into the
 * peer's memory at {@code remote}. A plain value; the endpoint checks it (registration, bounds, size) when it takes
 * it from the stream, exactly as it checks a single put.
 *
 * @param local  registered source memory, not released by the endpoint
 * @param remote the target window, at least {@code local.length()} bytes
 */
public record RemoteWrite(RegisteredSlice local, RemoteMemory remote) {

    public RemoteWrite {
        if (local == null || remote == null) {
            throw new InvalidRequestException("local slice and remote memory must not be null");
        }
    }
}
