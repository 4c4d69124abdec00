package dev.rivulet.conformance;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Transport;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.spi.TransportProvider;
import reactor.core.publisher.Flux;

import java.time.Duration;

/**
 * A child JVM of clients that keep an {@link EchoPeer} busy until they are killed: arguments are the
 * {@link TransportProvider} class, the peer's address, how many connections, then transport options as
 * {@code key=value}. Each connection streams small messages without end and takes the echoes, so that at any moment
 * the peer has receives, echoes and credits in flight on it. Prints {@code CONNECTED <n>} once all are up.
 */
public final class BusyClients {

    private BusyClients() {
    }

    public static void main(String[] args) throws Exception {
        Transport t = EchoPeer.open(args);
        int count = Integer.parseInt(args[2]);
        for (int i = 0; i < count; i++) {
            Endpoint ep = t.connect(args[1]).block(Duration.ofSeconds(30));
            ep.receive().subscribe(null, e -> { });
            ep.send(Flux.<Buffer, Long>generate(() -> 0L, (s, sink) -> {
                sink.next(Messages.make(ep.memory(), s, 64));
                return s + 1;
            })).subscribe(null, e -> { });
        }
        System.out.println("CONNECTED " + count);
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
