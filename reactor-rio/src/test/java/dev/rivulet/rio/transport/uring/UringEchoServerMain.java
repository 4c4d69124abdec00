package dev.rivulet.rio.transport.uring;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;

import java.time.Duration;

/**
 * The other process of {@link UringCrossProcessTest}: binds {@code args[0]}, prints {@code LISTENING <address>},
 * and echoes every message of every accepted endpoint back to it until killed.
 */
public final class UringEchoServerMain {

    private UringEchoServerMain() {
    }

    public static void main(String[] args) throws Exception {
        Transport t = new UringTransportProvider().open(TransportConfig.defaults());
        Listener l = t.bind(args.length > 0 ? args[0] : "uring://127.0.0.1:0").block(Duration.ofSeconds(10));
        l.accepted().subscribe(UringEchoServerMain::echo);
        System.out.println("LISTENING " + l.address());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }

    private static void echo(Endpoint e) {
        e.send(e.receive()).subscribe(null, err -> { });
    }
}
