package dev.rivulet.samples.bench;

import java.util.concurrent.CompletableFuture;

/**
 * Ping-pong driven from the thread that receives the pongs (a progress thread, an event loop): each pong sends the
 * next ping, so exactly one is in flight. The round trips of the first {@code warm} pings are not recorded.
 */
public final class PingPong {

    /** Sends ping number {@code seq}; a send that fails reports to {@link PingPong#fail}. */
    @FunctionalInterface
    public interface Sender {
        void ping(int seq, PingPong p);
    }

    private final Sender sender;
    private final int warm;
    private final int total;
    public final long[] rtt;
    public final CompletableFuture<Void> done = new CompletableFuture<>();
    private int i;
    private long t0;

    public PingPong(Sender sender, int warm, int count) {
        this.sender = sender;
        this.warm = warm;
        this.total = warm + count;
        this.rtt = new long[count];
    }

    /** Sends the first ping; call it on the thread that will receive the pongs where the sender needs that. */
    public void start() {
        t0 = System.nanoTime();
        sender.ping(i, this);
    }

    /** The pong of the ping in flight arrived at {@code now}. */
    public void pong(long now) {
        if (i >= warm) {
            rtt[i - warm] = now - t0;
        }
        if (++i < total) {
            t0 = System.nanoTime();
            sender.ping(i, this);
        } else {
            done.complete(null);
        }
    }

    public void fail(Throwable e) {
        done.completeExceptionally(e);
    }
}
