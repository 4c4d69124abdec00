package dev.rivulet.samples.bench;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.memory.Buffer;

import java.util.concurrent.CompletableFuture;

import static dev.rivulet.samples.bench.BenchWire.PING;
import static dev.rivulet.samples.bench.BenchWire.header;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/** Ping-pong driven from the progress thread: each pong sends the next ping. */
public final class PingPong {
    private final Endpoint ep;
    private final int size;
    private final int warm;
    private final int total;
    public final long[] rtt;
    public final CompletableFuture<Void> done = new CompletableFuture<>();
    private int i;
    private long t0;

    public PingPong(Endpoint ep, int size, int warm, int count) {
        this.ep = ep;
        this.size = size;
        this.warm = warm;
        this.total = warm + count;
        this.rtt = new long[count];
    }

    public void start() {
        t0 = System.nanoTime();
        ping();
    }

    private void ping() {
        Buffer b = ep.memory().allocate(size);
        b.capacitySegment().set(JAVA_LONG_UNALIGNED, 0, header(PING, i));
        ep.send(b).subscribe(null, e -> done.completeExceptionally(e));
    }

    public void pong(long now) {
        if (i >= warm) {
            rtt[i - warm] = now - t0;
        }
        if (++i < total) {
            t0 = System.nanoTime();
            ping();
        } else {
            done.complete(null);
        }
    }
}
