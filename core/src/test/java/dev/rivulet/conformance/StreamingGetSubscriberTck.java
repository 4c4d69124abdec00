package dev.rivulet.conformance;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.RegisteredSlice;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.core.memory.RemoteRead;
import org.reactivestreams.Publisher;

/**
 * TCK subscriber rules on {@code Endpoint.get(Publisher)}'s subscriber: every element reads 16 bytes of a window the
 * server registered.
 */
public abstract class StreamingGetSubscriberTck extends OneSidedSubscriberTck<RemoteRead> {

    protected StreamingGetSubscriberTck() {
        super(Access.REMOTE_READ);
    }

    @Override
    protected void subscribe(Endpoint client, Publisher<RemoteRead> source) {
        client.get(source).subscribe(null, e -> { });
    }

    @Override
    protected RemoteRead element(RegisteredSlice local, RemoteMemory window) {
        return new RemoteRead(window, local);
    }
}
