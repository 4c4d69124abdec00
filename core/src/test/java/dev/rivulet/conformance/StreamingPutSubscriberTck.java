package dev.rivulet.conformance;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.RegisteredSlice;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.core.memory.RemoteWrite;
import org.reactivestreams.Publisher;

/**
 * TCK subscriber rules on {@code Endpoint.put(Publisher)}'s subscriber: every element writes 16 bytes into a
 * window the server registered.
 */
public abstract class StreamingPutSubscriberTck extends OneSidedSubscriberTck<RemoteWrite> {

    protected StreamingPutSubscriberTck() {
        super(Access.REMOTE_WRITE);
    }

    @Override
    protected void subscribe(Endpoint client, Publisher<RemoteWrite> source) {
        client.put(source).subscribe(null, e -> { });
    }

    @Override
    protected RemoteWrite element(RegisteredSlice local, RemoteMemory window) {
        return new RemoteWrite(local, window);
    }
}
