package dev.rivulet.rdma.fabric;

import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;

import java.time.Duration;

/**
 * A second process for the cross-process tests: binds {@code fabric://127.0.0.1:0?provider=ARG}, prints
 * {@code ADDRESS <uri>} on stdout, and echoes every message of every endpoint back to its sender until killed.
 */
public final class FabricEchoPeer {

    private FabricEchoPeer() {
    }

    public static void main(String[] args) throws InterruptedException {
        String provider = args.length > 0 ? args[0] : "tcp";
        Transport t = new FabricTransportProvider().open(TransportConfig.defaults().option("provider", provider));
        Listener l = t.bind("fabric://127.0.0.1:0?provider=" + provider).block(Duration.ofSeconds(20));
        l.accepted().subscribe(ep -> {
            ep.send(ep.receive()).subscribe(null, e -> { });
            if (Boolean.getBoolean("rivulet.peer.stats")) {
                reactor.core.publisher.Flux.interval(Duration.ofSeconds(1))
                        .flatMap(i -> ep.stats()).subscribe(st -> System.out.println("STATS " + st));
            }
        });
        System.out.println("ADDRESS " + l.address());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
