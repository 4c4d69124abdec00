package dev.rivulet.faults;

import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.Transport;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.LeakDetector;
import dev.rivulet.core.resume.ResumableSession;
import dev.rivulet.core.resume.ResumeSpec;
import dev.rivulet.core.resume.SessionMemory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.BitSet;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;

/**
 * The connecting side of a resumable-session scenario ({@link ResumeFaultTest}), a JVM of its own inside the client
 * namespace, driven by the test through stdin. Arguments: the {@link dev.rivulet.core.spi.TransportProvider} class,
 * the session timeout in milliseconds, then transport options as {@code key=value}.
 *
 * <p>Commands (each answered asynchronously; {@code timeout} is a guard in milliseconds after which the operation is
 * reported as {@code TIMEOUT}):
 * <pre>
 * CONNECT address=.. timeout=..    CONNECTED at=..  |  FAILED command=CONNECT error=..; then, while the session lasts:
 *                                  DISCONNECTED at=..  each time it lost its connection (seen by polling),
 *                                  RESUMED resumes=.. at=..  each time it resumed on a new connection,
 *                                  RECEIVE end=complete|ExceptionName count=.. at=..  when its receive() ends,
 *                                  ENDED end=OK|ExceptionName resumes=.. replayed=.. at=.. -- why  when it ends
 * STREAM n=.. timeout=..           PROGRESS op=stream queued=.. (ten times), then
 *                                  STREAM end=OK|ExceptionName queued=.. bytes=.. ms=.. at=.. -- why
 * PUTS chunk=.. timeout=..         fills the server's data window with puts of chunk bytes each (deterministic
 *                                  bytes, up to 16 in flight): PUTS started=.. at=.., then PUTS end=OK|ExceptionName
 *                                  count=.. bytes=.. crc=.. ms=.. at=.. -- why  (crc: CRC32C of what was put, hex)
 * COUNT n=.. timeout=..            n fetchAdd(1) on the server's counter, up to a window of them in flight:
 *                                  PROGRESS op=count done=.. (ten times), then COUNT end=OK|ExceptionName done=..
 *                                  distinct=.. ms=.. at=.. -- why  (distinct: previous values seen once each, all
 *                                  in 0..n-1)
 * CLOSE                            CLOSED end=OK|.. at=..
 * BASELINE / HEALTH                {@link ProcessHealth}
 * QUIT
 * </pre>
 * Every message is a {@link StreamMessages} message, sent on the session as a byte array. The server's first two
 * messages are the handles of the counter and the data window it exposed to the session ({@link ResumePeer}).
 */
public final class ResumeClient {

    /**
     * How long one connection attempt may take, instead of the transport's 10 s: a connect made while the network is
     * partitioned waits on SYN retransmissions (1 s, then 3 s apart), and given up after this the session tries again
     * with its backoff, so it resumes soon after the network heals rather than on the kernel's schedule. A first
     * connect over libfabric in a fresh JVM takes most of a second.
     */
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
    /** The session's waits between attempts to connect again: short, so the time to resume is the network's. */
    private static final Duration MIN_BACKOFF = Duration.ofMillis(10);
    private static final Duration MAX_BACKOFF = Duration.ofMillis(250);
    /** How often the session's connection and resume count are looked at, for the lines' timestamps. */
    private static final long WATCH_EVERY_MS = 2;

    private final PeerConsole console = new PeerConsole();
    private final Transport transport;
    private final ResumeSpec spec;
    /** Guard timeouts and the resume watch run here, not on Reactor's shared parallel pool. */
    private final Scheduler timer = Schedulers.newSingle("fault-timer");
    private volatile ResumableSession session;
    /** The server's counter, from the session's first message. */
    private volatile CompletableFuture<SessionMemory> counter = new CompletableFuture<>();
    /** The server's data window, from the session's second message. */
    private volatile CompletableFuture<SessionMemory> data = new CompletableFuture<>();

    private ResumeClient(Transport transport, ResumeSpec spec) {
        this.transport = transport;
        this.spec = spec;
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: ResumeClient <provider class> <session timeout ms> [key=value ...]");
            System.exit(2);
        }
        LeakDetector.enable();
        new PeerConsole().say("PID", "pid", ProcessHandle.current().pid());
        ResumeSpec spec = ResumeSpec.defaults().sessionTimeout(Duration.ofMillis(Long.parseLong(args[1])))
                .reconnectBackoff(MIN_BACKOFF, MAX_BACKOFF);
        ResumeClient client = new ResumeClient(ChildArgs.openTransport(args, 2), spec);
        client.console.say("READY");
        client.console.serve(client::command);
    }

    private void command(Line c) {
        switch (c.kind()) {
            case "CONNECT" -> RivuletClient.create()
                    .runOn(transport)
                    .remoteAddress(c.get("address"))
                    .connectTimeout(CONNECT_TIMEOUT)
                    .connectResumable(spec)
                    .timeout(guard(c), timer)
                    .subscribe(this::connected, e -> console.say(Line.format("FAILED", "command", "CONNECT",
                            "error", PeerConsole.errorName(e)) + " -- " + PeerConsole.message(e)));
            case "STREAM" -> stream(c.getLong("n"), guard(c));
            case "PUTS" -> puts(Math.toIntExact(c.getLong("chunk")), guard(c));
            case "COUNT" -> count(Math.toIntExact(c.getLong("n")), guard(c));
            case "CLOSE" -> {
                ResumableSession s = session;
                s.dispose();
                s.onClose().timeout(Duration.ofSeconds(10), timer).subscribe(null,
                        err -> console.say("CLOSED", "end", PeerConsole.errorName(err), "at", PeerConsole.now()),
                        () -> console.say("CLOSED", "end", "OK", "at", PeerConsole.now()));
            }
            case "BASELINE" -> console.say(ProcessHealth.baseline(transport).line(c.kind()));
            case "HEALTH" -> console.say(ProcessHealth.of(transport).line(c.kind()));
            case "QUIT" -> {
                transport.dispose();
                transport.onDispose().block(Duration.ofSeconds(10));
                System.exit(0);
            }
            default -> throw new IllegalArgumentException("unknown command " + c.kind());
        }
    }

    private static Duration guard(Line c) {
        return Duration.ofMillis(Long.parseLong(c.getOr("timeout", "60000")));
    }

    /** Reports, for the session's life, each loss and resume, how its receive() ended, and how it ended. */
    private void connected(ResumableSession s) {
        CompletableFuture<SessionMemory> counterHandle = new CompletableFuture<>();
        CompletableFuture<SessionMemory> dataHandle = new CompletableFuture<>();
        counter = counterHandle;
        data = dataHandle;
        session = s;
        console.say("CONNECTED", "at", PeerConsole.now());
        AtomicLong reported = new AtomicLong();
        AtomicBoolean linked = new AtomicBoolean(true);
        Disposable watch = timer.schedulePeriodically(() -> {
            boolean connected = s.isConnected();
            if (linked.getAndSet(connected) && !connected && !s.isDisposed()) {
                console.say("DISCONNECTED", "at", PeerConsole.now());
            }
            long resumes = s.resumes();
            if (resumes > reported.get()) {
                reported.set(resumes);
                console.say("RESUMED", "resumes", resumes, "at", PeerConsole.now());
            }
        }, WATCH_EVERY_MS, WATCH_EVERY_MS, TimeUnit.MILLISECONDS);
        AtomicLong received = new AtomicLong();
        s.receive().subscribe(m -> {
                    long seq = received.getAndIncrement();
                    if (seq == 0) {
                        counterHandle.complete(SessionMemory.fromBytes(m));
                    } else if (seq == 1) {
                        dataHandle.complete(SessionMemory.fromBytes(m));
                    }
                },
                e -> console.say("RECEIVE", "end", PeerConsole.errorName(e), "count", received.get(),
                        "at", PeerConsole.now()),
                () -> console.say("RECEIVE", "end", "complete", "count", received.get(), "at", PeerConsole.now()));
        s.onClose().doFinally(x -> watch.dispose()).subscribe(null,
                e -> console.say(Line.format("ENDED", "end", PeerConsole.errorName(e), "resumes", s.resumes(),
                        "replayed", s.replayed(), "at", PeerConsole.now()) + " -- " + PeerConsole.message(e)),
                () -> console.say("ENDED", "end", "OK", "resumes", s.resumes(), "replayed", s.replayed(),
                        "at", PeerConsole.now()));
    }

    private void stream(long n, Duration guard) {
        ResumableSession s = session;
        long start = System.nanoTime();
        long progressEvery = Math.max(1, n / 10);
        AtomicLong queued = new AtomicLong();
        AtomicLong bytes = new AtomicLong();
        Flux<byte[]> messages = Flux.generate(() -> 0L, (seq, sink) -> {
            sink.next(message(seq));
            long done = queued.incrementAndGet();
            if (done % progressEvery == 0) {
                console.say("PROGRESS", "op", "stream", "queued", done, "at", PeerConsole.now());
            }
            if (seq + 1 == n) {
                sink.complete();
            }
            return seq + 1;
        });
        s.send(messages.doOnNext(m -> bytes.addAndGet(m.length))).timeout(guard, timer).subscribe(null,
                err -> console.say(Line.format("STREAM", "end", PeerConsole.errorName(err), "queued", queued.get(),
                        "bytes", bytes.get(), "ms", (System.nanoTime() - start) / 1_000_000, "at", PeerConsole.now())
                        + " -- " + PeerConsole.message(err)),
                () -> console.say("STREAM", "end", "OK", "queued", queued.get(), "bytes", bytes.get(),
                        "ms", (System.nanoTime() - start) / 1_000_000, "at", PeerConsole.now()));
    }

    /**
     * Fills the server's data window with puts of {@code chunk} bytes each, chunk {@code i} at {@code i * chunk}, its
     * bytes drawn from a generator seeded with {@code i}; reports the CRC32C of the whole, to compare with the server's.
     */
    private void puts(int chunk, Duration guard) {
        ResumableSession s = session;
        long start = System.nanoTime();
        AtomicLong count = new AtomicLong();
        Mono.fromFuture(data)
                .flatMap(window -> {
                    int chunks = Math.toIntExact(window.length() / chunk);
                    CRC32C crc = new CRC32C();
                    for (int i = 0; i < chunks; i++) {
                        crc.update(chunk(i, chunk));
                    }
                    console.say("PUTS", "started", chunks, "at", PeerConsole.now());
                    return Flux.range(0, chunks)
                            .flatMap(i -> s.put(chunk(i, chunk), window.slice((long) i * chunk, chunk))
                                    .doOnSuccess(v -> count.incrementAndGet()), 16)
                            .then(Mono.just(crc.getValue()));
                })
                .timeout(guard, timer)
                .subscribe(crc -> console.say("PUTS", "end", "OK", "count", count.get(),
                                "bytes", count.get() * chunk, "crc", Long.toHexString(crc),
                                "ms", (System.nanoTime() - start) / 1_000_000, "at", PeerConsole.now()),
                        err -> console.say(Line.format("PUTS", "end", PeerConsole.errorName(err), "count",
                                count.get(), "ms", (System.nanoTime() - start) / 1_000_000, "at", PeerConsole.now())
                                + " -- " + PeerConsole.message(err)));
    }

    private static byte[] chunk(int i, int size) {
        byte[] bytes = new byte[size];
        new SplittableRandom(i).nextBytes(bytes);
        return bytes;
    }

    /**
     * {@code n} fetchAdd(1)s on the server's counter, as many in flight as the session admits: each previous value
     * must come back once, so a call applied twice (or lost) shows as a value seen twice (or never).
     */
    private void count(int n, Duration guard) {
        ResumableSession s = session;
        Mono<SessionMemory> target = Mono.fromFuture(counter);
        long start = System.nanoTime();
        int progressEvery = Math.max(1, n / 10);
        BitSet seen = new BitSet(n);
        AtomicLong done = new AtomicLong();
        AtomicLong distinct = new AtomicLong();
        target.flatMapMany(handle -> Flux.range(0, n).flatMap(i -> s.fetchAdd(handle, 1), 1024))
                .doOnNext(previous -> {
                    long p = previous;
                    synchronized (seen) {
                        if (p >= 0 && p < n && !seen.get((int) p)) {
                            seen.set((int) p);
                            distinct.incrementAndGet();
                        }
                    }
                    long d = done.incrementAndGet();
                    if (d % progressEvery == 0) {
                        console.say("PROGRESS", "op", "count", "done", d, "at", PeerConsole.now());
                    }
                })
                .then()
                .timeout(guard, timer)
                .subscribe(null,
                        err -> console.say(Line.format("COUNT", "end", PeerConsole.errorName(err), "done", done.get(),
                                "distinct", distinct.get(), "ms", (System.nanoTime() - start) / 1_000_000,
                                "at", PeerConsole.now()) + " -- " + PeerConsole.message(err)),
                        () -> console.say("COUNT", "end", "OK", "done", done.get(), "distinct", distinct.get(),
                                "ms", (System.nanoTime() - start) / 1_000_000, "at", PeerConsole.now()));
    }

    /** Message {@code seq} as the session sends it: a copy of the pooled one the other scenarios send. */
    private byte[] message(long seq) {
        Buffer b = StreamMessages.make(transport.memory(), seq);
        try {
            return b.toArray();
        } finally {
            b.release();
        }
    }
}
