package dev.rivulet.rdma;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Transport;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.rdma.fabric.FabricTransport;
import reactor.core.publisher.Mono;

/** Working with libfabric programs that are not Rivulet. */
public final class FabricInterop {

    private FabricInterop() {
    }

    /**
     * An endpoint of {@code transport} (a libfabric one) to a libfabric program that is not Rivulet, named by its
     * raw endpoint name ({@code fi_getname} bytes handed over out of band, with the address, length and key of the
     * memory it exposes). Only one-sided operations make sense on it: put, get, atomics, flush and fence; there is no
     * credit protocol and no liveness channel.
     */
    public static Mono<Endpoint> attach(Transport transport, byte[] peerEndpointName) {
        if (!(transport instanceof FabricTransport fabric)) {
            return Mono.error(new InvalidRequestException("attach needs a libfabric transport, not " + transport));
        }
        if (peerEndpointName == null || peerEndpointName.length == 0) {
            return Mono.error(new InvalidRequestException("the peer's endpoint name is empty"));
        }
        return fabric.attach(peerEndpointName);
    }
}
