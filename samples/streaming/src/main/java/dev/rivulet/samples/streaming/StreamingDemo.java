package dev.rivulet.samples.streaming;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.EndpointStats;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.spi.TransportProvider;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The streaming demo: a producer streams messages to a deliberately slow consumer over a real server/client pair
 * and prints, about once a second, throughput and the flow-control counters of both endpoints. The consumer's
 * demand is all that lets the producer go on: the receiving side posts at most {@code --queue-depth} receives and
 * grants one credit per receive, so the sender never has more messages in flight than it was granted, and the
 * rest of its work waits in the endpoint's pending FIFO instead of piling up in memory.
 *
 * <p>Every message carries its sequence number and a filler derived from it; the consumer checks each byte, in
 * order, and the run exits non-zero on any mismatch or loss.
 *
 * <p>Threads: the producer's buffers are made where the transport asks for them (its polling thread, one per
 * completion: a short, non-blocking fill); the consumer's per-message work and its delay run on a
 * {@code boundedElastic} worker behind {@code publishOn}, never on a polling thread.
 */
public final class StreamingDemo {

    private StreamingDemo() {
    }

    public static void main(String[] args) {
        DemoOptions options;
        try {
            options = DemoOptions.parse(args);
            target(options); // unknown transport without --address: a usage error, found before anything opens
        } catch (IllegalArgumentException e) {
            if (!"help".equals(e.getMessage())) {
                System.err.println("error: " + e.getMessage());
            }
            System.err.println(DemoOptions.USAGE);
            System.exit("help".equals(e.getMessage()) ? 0 : 2);
            return;
        }
        DemoResult result;
        try {
            result = run(options, System.out);
        } catch (RuntimeException e) {
            System.err.println("demo failed: " + e);
            e.printStackTrace(System.err);
            System.exit(1);
            return;
        }
        System.out.flush();
        System.exit(result.ok() ? 0 : 1);
    }

    /** A provider and bind address the demo may run on, and why it was chosen. */
    record Target(String provider, String bindAddress, String note) {
    }

    /** The first transport {@link #run} tries: see {@link #targets}. */
    static Target target(DemoOptions o) {
        return targets(o).getFirst();
    }

    /**
     * What a run tries, in order: the one named with {@code --transport}; otherwise every available provider the
     * demo has an address for, best first (libfabric, then io_uring, ...), ending with the in-JVM one.
     */
    static List<Target> targets(DemoOptions o) {
        if (o.transport() != null) {
            String address = o.address() != null ? o.address() : DemoAddresses.bindAddress(o.transport())
                    .orElseThrow(() -> new IllegalArgumentException("the demo has no address for transport '"
                            + o.transport() + "' (known: " + DemoAddresses.providers()
                            + "); pass --address URI"));
            return List.of(new Target(o.transport(), address, "chosen with --transport"));
        }
        List<Target> targets = new ArrayList<>();
        StringBuilder passedOver = new StringBuilder();
        for (TransportProvider p : Transports.providers()) {
            var availability = p.availability();
            Optional<String> address = DemoAddresses.bindAddress(p.name());
            if (!availability.available() || address.isEmpty()) {
                passedOver.append(passedOver.isEmpty() ? "" : "; ").append(p.name()).append(": ")
                        .append(availability.available() ? "no demo address" : availability.reason());
                continue;
            }
            String note = (targets.isEmpty() ? "best available provider" : "next available provider")
                    + (passedOver.isEmpty() ? "" : " (passed over " + passedOver + ")");
            targets.add(new Target(p.name(), o.address() != null ? o.address() : address.get(), note));
        }
        if (targets.stream().noneMatch(t -> t.provider().equals("local"))) {
            targets.add(new Target("local", DemoAddresses.bindAddress("local").orElseThrow(),
                    "falling back to local (passed over " + passedOver + ")"));
        }
        return targets;
    }

    /** Runs the demo, printing progress to {@code out}; never calls {@code System.exit}. */
    public static DemoResult run(DemoOptions o, PrintStream out) {
        TransportConfig config = TransportConfig.defaults().receiveQueueDepth(o.queueDepth());
        Target target = null;
        Transport serverTransport = null;
        String failures = "";
        for (Target t : targets(o)) {
            try {
                serverTransport = Transports.open(t.provider(), config);
                target = failures.isEmpty() ? t : new Target(t.provider(), t.bindAddress(),
                        t.note() + "; " + failures);
                break;
            } catch (dev.rivulet.core.error.TransportException e) {
                if (o.transport() != null || "local".equals(t.provider())) {
                    throw e;
                }
                // A provider can say it is available and still fail to open (e.g. libfabric installed but no
                // usable provider): the demo goes on with the next one and says why.
                failures += "'" + t.provider() + "' failed to open: " + e.getMessage() + "; ";
            }
        }
        Transport clientTransport = null;
        RivuletServer.BoundServer server = null;
        Scheduler consumerScheduler = Schedulers.newBoundedElastic(1, Integer.MAX_VALUE, "demo-consumer", 60, true);
        Consumer consumer = new Consumer(o, consumerScheduler);
        Reporter reporter = null;
        try {
            clientTransport = Transports.open(target.provider(), config);
            AtomicReference<Endpoint> serverEp = new AtomicReference<>();
            server = RivuletServer.create()
                    .runOn(serverTransport)
                    .bindAddress(target.bindAddress())
                    .doOnConnection(serverEp::set)
                    .handle(consumer::consume)
                    .bindNow(Duration.ofSeconds(10));
            Endpoint client = RivuletClient.create()
                    .runOn(clientTransport)
                    .remoteAddress(server.address())
                    .connectNow(Duration.ofSeconds(10));

            int receiveDepth = serverTransport.capabilities().receiveQueueDepth();
            out.printf(Locale.ROOT, "Rivulet streaming demo: %,d messages of %d B over '%s' (%s), %s%n",
                    o.messages(), o.size(), serverTransport.name(), server.address(), target.note());
            out.printf(Locale.ROOT, "consumer: %d us per message on a boundedElastic worker; receive queue depth "
                            + "%d (= most credits granted at once); send queue depth %d%n",
                    o.consumerDelayUs(), receiveDepth, clientTransport.capabilities().sendQueueDepth());

            long start = System.nanoTime();
            reporter = new Reporter(out, o, consumer, client, serverEp, receiveDepth, start);
            reporter.start();

            Duration timeout = Duration.ofSeconds(o.timeoutSeconds());
            String failure = null;
            try {
                client.send(producer(client, o)).block(timeout);
            } catch (RuntimeException e) {
                failure = "send failed: " + e;
            }
            long sentNanos = System.nanoTime() - start;
            EndpointStats clientStats = client.stats().block(Duration.ofSeconds(5));
            // Graceful close: what is in flight finishes, then the consumer's receive() completes after the
            // messages still queued for it.
            client.closeGracefully(Duration.ofSeconds(5)).onErrorComplete().block(Duration.ofSeconds(10));
            long left = TimeUnit.SECONDS.toNanos(o.timeoutSeconds()) - sentNanos;
            boolean finished = consumer.awaitDone(Math.max(left, TimeUnit.SECONDS.toNanos(5)));
            long elapsed = System.nanoTime() - start;
            reporter.stop();
            Endpoint s = serverEp.get();
            EndpointStats serverStats = s == null ? null : s.stats().onErrorResume(e -> Mono.empty())
                    .block(Duration.ofSeconds(5));
            if (failure == null && !finished) {
                failure = "consumer did not finish within " + o.timeoutSeconds() + " s (received "
                        + consumer.received.get() + " of " + o.messages() + ")";
            }
            if (failure == null && consumer.error.get() != null) {
                failure = "receive failed: " + consumer.error.get();
            }
            DemoResult r = new DemoResult(serverTransport.name(), o.messages(), o.size(), consumer.received.get(),
                    consumer.verified.get(), consumer.mismatches.get(), elapsed, reporter.maxSendsInFlight(),
                    clientStats == null ? -1 : clientStats.maxSendsInFlight(),
                    serverStats == null ? -1 : serverStats.maxReceivesPosted(), receiveDepth,
                    clientStats == null ? -1 : clientStats.messagesSent(),
                    serverStats == null ? -1 : serverStats.creditsGranted(),
                    clientStats == null ? -1 : clientStats.creditStalls(), reporter.violations(),
                    consumer.firstMismatch.get(), failure);
            out.println(r.summary());
            return r;
        } finally {
            if (reporter != null) {
                reporter.stop();
            }
            if (server != null) {
                server.dispose();
            }
            if (clientTransport != null) {
                clientTransport.dispose();
            }
            serverTransport.dispose();
            consumerScheduler.dispose();
        }
    }

    /** Messages 0..n-1 from registered, pooled buffers of the client's transport. */
    static Publisher<Buffer> producer(Endpoint ep, DemoOptions o) {
        long n = o.messages();
        int size = o.size();
        return Flux.generate(AtomicLong::new, (AtomicLong next, reactor.core.publisher.SynchronousSink<Buffer> sink) -> {
            long seq = next.getAndIncrement();
            if (seq < n) {
                sink.next(DemoMessages.write(ep.memory().allocate(size), seq));
            } else {
                sink.complete();
            }
            return next;
        });
    }

    /** The slow consumer: checks every message in order, releases it, then spends its per-message delay. */
    static final class Consumer {
        private final DemoOptions o;
        private final Scheduler scheduler;
        final AtomicLong received = new AtomicLong();
        final AtomicLong verified = new AtomicLong();
        final AtomicLong mismatches = new AtomicLong();
        final AtomicReference<String> firstMismatch = new AtomicReference<>();
        final AtomicReference<Throwable> error = new AtomicReference<>();
        private final CountDownLatch done = new CountDownLatch(1);
        private final long delayNanos;
        private long expected;
        private long nextDue;

        Consumer(DemoOptions o, Scheduler scheduler) {
            this.o = o;
            this.scheduler = scheduler;
            this.delayNanos = TimeUnit.MICROSECONDS.toNanos(o.consumerDelayUs());
        }

        Publisher<Void> consume(Endpoint ep) {
            int prefetch = ep.capabilities().receiveQueueDepth();
            // Messages are consumed on another thread, so each is retained: the consumer releases it (and a
            // cancelled publishOn queue gives back what it still holds, through doOnDiscard).
            return ep.receive()
                    .retain()
                    .publishOn(scheduler, prefetch)
                    .doOnNext(this::onMessage)
                    .doOnDiscard(Buffer.class, Buffer::release)
                    .doOnError(error::set)
                    .doFinally(s -> done.countDown())
                    .then();
        }

        /** On the consumer's worker thread. */
        private void onMessage(Buffer buf) {
            try {
                long seq = expected++;
                if (DemoMessages.verify(buf, seq, o.size())) {
                    verified.incrementAndGet();
                } else {
                    mismatches.incrementAndGet();
                    firstMismatch.compareAndSet(null, "message #" + seq + ": got sequence "
                            + DemoMessages.sequence(buf) + ", length " + buf.length());
                }
            } finally {
                buf.release();
            }
            received.incrementAndGet();
            pace();
        }

        /**
         * Spends {@code delayNanos} per message on average. Parking for 20 us at a time would really take a timer
         * tick or more, so the consumer keeps a schedule and parks only when it is ahead of it by 0.2 ms or more.
         */
        private void pace() {
            if (delayNanos == 0) {
                return;
            }
            long now = System.nanoTime();
            if (nextDue == 0 || now - nextDue > 10_000_000L) {
                nextDue = now; // first message, or fell far behind: do not make up for lost time in a burst
            }
            nextDue += delayNanos;
            long ahead = nextDue - now;
            if (ahead >= 200_000L) {
                LockSupport.parkNanos(ahead);
            }
        }

        boolean awaitDone(long nanos) {
            try {
                return done.await(nanos, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    /**
     * Prints a line about once a second. The sender is sampled before the receiver, so the receiver's total of
     * granted credits is from later than the sender's total of messages sent: {@code sent <= granted} must hold.
     */
    static final class Reporter {
        private final PrintStream out;
        private final DemoOptions o;
        private final Consumer consumer;
        private final Endpoint client;
        private final AtomicReference<Endpoint> server;
        private final int receiveDepth;
        private final long start;
        private final Thread thread;
        private volatile boolean running = true;
        private volatile int maxSendsInFlight;
        private volatile int violations;

        Reporter(PrintStream out, DemoOptions o, Consumer consumer, Endpoint client, AtomicReference<Endpoint> server,
                 int receiveDepth, long start) {
            this.out = out;
            this.o = o;
            this.consumer = consumer;
            this.client = client;
            this.server = server;
            this.receiveDepth = receiveDepth;
            this.start = start;
            this.thread = Thread.ofPlatform().name("demo-reporter").daemon(true).unstarted(this::loop);
        }

        void start() {
            thread.start();
        }

        void stop() {
            if (running) {
                running = false;
                LockSupport.unpark(thread);
                try {
                    thread.join(3_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        int maxSendsInFlight() {
            return maxSendsInFlight;
        }

        int violations() {
            return violations;
        }

        private void loop() {
            long lastCount = 0;
            long lastTime = start;
            while (running) {
                long due = lastTime + 1_000_000_000L;
                while (running && System.nanoTime() < due) {
                    LockSupport.parkNanos(due - System.nanoTime());
                }
                if (!running) {
                    return;
                }
                long now = System.nanoTime();
                long count = consumer.received.get();
                EndpointStats c = sample(client);
                EndpointStats s = sample(server.get());
                double secs = (now - lastTime) / 1e9;
                double rate = (count - lastCount) / secs;
                print(now, count, rate, c, s);
                lastCount = count;
                lastTime = now;
            }
        }

        private static EndpointStats sample(Endpoint ep) {
            if (ep == null || ep.isDisposed()) {
                return null;
            }
            try {
                return ep.stats().block(Duration.ofSeconds(2));
            } catch (RuntimeException e) {
                return null;
            }
        }

        private void print(long now, long count, double rate, EndpointStats c, EndpointStats s) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                    "[%5.1fs] received %,9d (%3d%%) | %,9.0f msg/s %7.2f MB/s",
                    (now - start) / 1e9, count, (int) (100 * count / o.messages()), rate,
                    rate * o.size() / 1e6));
            if (c != null) {
                if (c.sendsInFlight() > maxSendsInFlight) {
                    maxSendsInFlight = c.sendsInFlight();
                }
                line.append(String.format(Locale.ROOT,
                        " | sender: sendsInFlight %3d sendCredits %3d pendingOperations %3d creditStalls %,d",
                        c.sendsInFlight(), c.sendCredits(), c.pendingOperations(), c.creditStalls()));
            }
            if (s != null) {
                line.append(String.format(Locale.ROOT, " | receiver: receivesPosted %3d/%d", s.receivesPosted(),
                        receiveDepth));
            }
            if (c != null && s != null) {
                boolean ok = c.sendsInFlight() <= receiveDepth && c.messagesSent() <= s.creditsGranted()
                        && s.receivesPosted() <= receiveDepth;
                if (!ok) {
                    violations++;
                }
                line.append(String.format(Locale.ROOT, " | sent %,d <= granted %,d %s", c.messagesSent(),
                        s.creditsGranted(), ok ? "ok" : "VIOLATED"));
            }
            out.println(line);
        }
    }
}
