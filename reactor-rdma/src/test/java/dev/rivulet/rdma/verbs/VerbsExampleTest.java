package dev.rivulet.rdma.verbs;

import dev.rivulet.conformance.Requirements;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.Transports;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example of {@code docs/verbs-transport.md}: an echo server and a client over verbs addresses, each opening the
 * shared transport its address implies. Runs where an RDMA device is present; skipped with the reason elsewhere.
 */
class VerbsExampleTest {

    @Test
    void anEchoOverVerbsAddresses() {
        Requirements.assume(new VerbsTransportProvider().availability(), "verbs");
        String address = VerbsAddress.uri(VerbsConformanceTest.HOST, 0, "");
        try {
            // snippet:begin echo
            RivuletServer.BoundServer server = RivuletServer.create()
                    .bindAddress(address) // e.g. verbs://10.0.0.7:7471?device=mlx5_0&port=1
                    .handle(ep -> ep.send(ep.receive().retain()))
                    .bindNow();
            Endpoint client = RivuletClient.create()
                    .remoteAddress(server.address())
                    .connectNow();
            String echoed = client.receive().asString().next()
                    .zipWith(client.send("hello over RDMA").thenReturn(1), (reply, sent) -> reply)
                    .block(Duration.ofSeconds(10));
            // snippet:end
            assertThat(echoed).isEqualTo("hello over RDMA");
            assertThat(client.capabilities().transport()).startsWith("verbs/");
            client.dispose();
            server.disposeNow(Duration.ofSeconds(10));
        } finally {
            Transports.disposeShared();
        }
    }
}
