package dev.rivulet.samples.pingpong;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.IntConsumer;

/**
 * A ping-pong peer for libfabric's own {@code fi_pingpong}, in either role, over an RDM endpoint ({@code -e rdm},
 * provider {@code tcp} by default): start {@code fi_pingpong} on one side and this on the other with the same
 * {@code -S}, {@code -I} and {@code -c}, and both print the same kind of table.
 *
 * <p>It follows fi_pingpong's protocol step for step: the control connection, the name exchange, per size a sync,
 * the timed iterations (the client sends first; {@code fi_inject} below the inject size, {@code fi_send} and its
 * completion above; one receive reposted after each arrival) and the client's receive count; then {@code fin}.
 * It uses the libfabric binding directly rather than Rivulet's transport, whose credit words fi_pingpong would not
 * understand.
 */
public final class PingPong {

    private final PingPongOptions options;
    private final ControlChannel control;
    private final RdmEndpoint endpoint;
    private final DataPattern pattern;
    private final ResultTable table;

    private PingPong(PingPongOptions options, ControlChannel control, RdmEndpoint endpoint, PrintStream out) {
        this.options = options;
        this.control = control;
        this.endpoint = endpoint;
        this.pattern = options.verifyData() ? new DataPattern(endpoint.bufferSize()) : null;
        this.table = new ResultTable(out);
    }

    public static void main(String[] args) {
        PingPongOptions options;
        try {
            options = PingPongOptions.parse(args);
        } catch (IllegalArgumentException e) {
            if (!"help".equals(e.getMessage())) {
                System.err.println("error: " + e.getMessage());
            }
            System.err.println(PingPongOptions.USAGE);
            System.exit("help".equals(e.getMessage()) ? 0 : 2);
            return;
        }
        Optional<String> unavailable = RdmEndpoint.unavailableReason(options.provider());
        if (unavailable.isPresent()) {
            System.err.println("pingpong: " + unavailable.get());
            System.exit(1);
            return;
        }
        try {
            run(options, System.out, System.err, port -> { });
        } catch (IOException | PingPongException e) {
            System.out.flush();
            System.err.println("pingpong: " + e.getMessage());
            System.exit(1);
        }
        System.exit(0);
    }

    /**
     * Runs one side to the end and returns a result per size; the table goes to {@code out}, a line saying which
     * provider and address were used to {@code log}. A server calls {@code onListening} with its control port once
     * a client can connect.
     *
     * @throws PingPongException when libfabric fails, the peer breaks the protocol or stays silent past
     *                           {@code -T}, or {@code -c} finds a wrong byte
     */
    public static List<RoundResult> run(PingPongOptions o, PrintStream out, PrintStream log, IntConsumer onListening)
            throws IOException {
        long bufferSize = o.sizes().bufferSize();
        if (o.isServer()) {
            try (ControlChannel control = ControlChannel.accept(o.controlPort(), o.stallTimeout(), onListening);
                 RdmEndpoint ep = RdmEndpoint.open(o.provider(), o.domain(), bufferSize, null, o.stallTimeout())) {
                FabricName own = ep.name();
                log.println("pingpong server: " + ep.description() + ", fabric name " + own);
                control.sendName(own);
                ep.insertPeer(control.receiveName());
                return new PingPong(o, control, ep, out).rounds();
            }
        }
        try (ControlChannel control = ControlChannel.connect(o.serverHost(), o.controlPort(), o.sourcePort(),
                o.stallTimeout())) {
            FabricName server = control.receiveName();
            try (RdmEndpoint ep = RdmEndpoint.open(o.provider(), o.domain(), bufferSize, server, o.stallTimeout())) {
                FabricName own = ep.name();
                log.println("pingpong client: " + ep.description() + ", fabric name " + own + ", server " + server);
                control.sendName(own);
                ep.insertPeer(server);
                return new PingPong(o, control, ep, out).rounds();
            }
        }
    }

    private List<RoundResult> rounds() throws IOException {
        List<RoundResult> results = new ArrayList<>();
        for (int size : options.sizes().sizes(endpoint.bufferSize())) {
            RoundResult r = round(size);
            table.print(r);
            results.add(r);
        }
        endpoint.finish();
        control.close(); // before the fabric resources, as fi_pingpong
        return results;
    }

    private RoundResult round(int size) throws IOException {
        boolean client = !options.isServer();
        if (client) {
            control.syncAsClient();
        } else {
            control.syncAsServer();
        }
        long received = 0;
        long start = System.nanoTime();
        for (int i = 0; i < options.iterations(); i++) {
            if (client) {
                transmit(size);
                received += receive(size);
            } else {
                received += receive(size);
                transmit(size);
            }
        }
        long nanos = System.nanoTime() - start;
        long acked;
        if (client) {
            control.sendCount(received);
            acked = received;
        } else {
            acked = control.receiveCount(); // the table shows the client's count on both sides
        }
        return new RoundResult(size, options.iterations(), acked, nanos);
    }

    private void transmit(int size) {
        if (pattern != null) {
            pattern.fill(endpoint.sendPayload(), size);
        }
        endpoint.send(size);
    }

    private int receive(int size) {
        endpoint.awaitReceive();
        if (pattern != null) {
            long wrong = pattern.check(endpoint.receivedPayload(), size);
            if (wrong >= 0) {
                // fi_pingpong's own wording, so a failure reads the same whichever side found it
                throw new PingPongException("Error at iteration=" + pattern.checkedCount() + " size=" + size
                        + " byte=" + wrong);
            }
        }
        endpoint.postReceive();
        return 1;
    }
}
