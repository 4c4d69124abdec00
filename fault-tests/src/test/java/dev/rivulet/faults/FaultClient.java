package dev.rivulet.faults;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Operation;
import dev.rivulet.core.Transport;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.LeakDetector;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.core.memory.RemoteWrite;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.zip.CRC32C;

/**
 * The connecting side of a fault scenario, a JVM of its own inside the client namespace, driven by the test through
 * stdin and reporting every outcome on stdout, so the test can assert on the typed error each operation ended with.
 * Arguments: the {@link dev.rivulet.core.spi.TransportProvider} class, then transport options as {@code key=value}.
 *
 * <p>Commands (each answered asynchronously; {@code timeout} is a guard in milliseconds after which the operation
 * is reported as {@code TIMEOUT} instead of waited for):
 * <pre>
 * CONNECT address=.. timeout=..        CONNECTED at=..  |  FAILED command=CONNECT error=..
 * CLOSE                                CLOSED end=OK|.. at=..
 * STREAM n=.. echo=true|false timeout=..
 *                                      PROGRESS op=stream queued=.. (ten times), then
 *                                      STREAM end=OK|ExceptionName queued=.. bytes=.. echoed=.. bad=.. ms=.. at=..
 * RMA handle=.. bytes=.. timeout=..    PROGRESS op=rma round=.., then RMA end=.. rounds=.. putBytes=.. getBytes=..
 *                                      mismatches=.. atomics=.. crc=.. span=.. ms=.. at=..
 * PUT handle=.. size=.. timeout=..     PUT started=.., then PUT end=.. size=.. crc=.. ms=.. at=..
 * PENDING handle=.. timeout=..         PENDING running (every loop completed an operation), then per loop
 *                                      END op=send|receive|put|get|atomic|flush error=.. ops=.. at=..,
 *                                      then LOST flushAfter=.. onClose=OK|.. at=..
 * BASELINE / HEALTH                    {@link ProcessHealth}
 * QUIT
 * </pre>
 * Every message sent is a {@link StreamMessages} message; RMA content is checked against a local shadow of what the
 * window must hold, and the window's expected CRC32C is reported so the test can compare it with the server's.
 */
public final class FaultClient {

    private static final long REGION_BYTES = Window.LARGE_PUT_MAX;
    private static final int[] PUT_SIZES = {1, 7, 4096, 65_536, 300_001, 1 << 20};
    private static final int RMA_SLOTS = 8;
    private static final Duration LOOP_PAUSE = Duration.ofMillis(1);

    private final PeerConsole console = new PeerConsole();
    private final Transport transport;
    private final MemoryRegion src;
    private final MemoryRegion dst;
    private final MemorySegment shadow;
    /** Guard timeouts and loop pauses run here, not on Reactor's shared parallel pool (fixed thread count). */
    private final Scheduler timer = Schedulers.newSingle("fault-timer");
    private volatile Endpoint ep;

    private FaultClient(Transport transport) {
        this.transport = transport;
        Arena arena = Arena.ofShared(); // lives as long as the process
        this.src = transport.memory().register(arena.allocate(REGION_BYTES, 4096));
        this.dst = transport.memory().register(arena.allocate(REGION_BYTES, 4096));
        this.shadow = arena.allocate(Window.RMA_SPAN, 4096);
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: FaultClient <provider class> [key=value ...]");
            System.exit(2);
        }
        LeakDetector.enable();
        new PeerConsole().say("PID", "pid", ProcessHandle.current().pid());
        FaultClient client = new FaultClient(ChildArgs.openTransport(args, 1));
        client.console.say("READY");
        client.console.serve(client::command);
    }

    private void command(Line c) {
        switch (c.kind()) {
            case "CONNECT" -> transport.connect(c.get("address")).timeout(guard(c), timer).subscribe(
                    e -> {
                        ep = e;
                        console.say("CONNECTED", "at", PeerConsole.now());
                    },
                    e -> failed("CONNECT", e));
            case "CLOSE" -> {
                Endpoint e = ep;
                e.dispose();
                e.onClose().timeout(Duration.ofSeconds(10), timer).subscribe(null,
                        err -> console.say("CLOSED", "end", PeerConsole.errorName(err), "at", PeerConsole.now()),
                        () -> console.say("CLOSED", "end", "OK", "at", PeerConsole.now()));
            }
            case "STREAM" -> stream(c.getLong("n"), Boolean.parseBoolean(c.getOr("echo", "false")), guard(c));
            case "RMA" -> rma(remote(c), c.getLong("bytes"), guard(c));
            case "PUT" -> put(remote(c), c.getLong("size"), guard(c));
            case "PENDING" -> pending(remote(c), guard(c));
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

    private static RemoteMemory remote(Line c) {
        return RemoteMemory.fromBytes(HexFormat.of().parseHex(c.get("handle")));
    }

    private void failed(String command, Throwable e) {
        console.say(Line.format("FAILED", "command", command, "error", PeerConsole.errorName(e)) + " -- "
                + PeerConsole.message(e));
    }

    // ---- a verified message stream -------------------------------------------------------------------------------

    private void stream(long n, boolean echo, Duration guard) {
        Endpoint e = ep;
        long start = System.nanoTime();
        long progressEvery = Math.max(1, n / 10);
        AtomicLong queued = new AtomicLong();
        AtomicLong bytes = new AtomicLong();
        Flux<Buffer> messages = Flux.generate(() -> 0L, (seq, sink) -> {
            Buffer b = StreamMessages.make(e.memory(), seq);
            bytes.addAndGet(b.length());
            sink.next(b);
            long done = queued.incrementAndGet();
            if (done % progressEvery == 0) {
                console.say("PROGRESS", "op", "stream", "queued", done, "at", PeerConsole.now());
            }
            if (seq + 1 == n) {
                sink.complete();
            }
            return seq + 1;
        });
        StreamChecker echoed = new StreamChecker();
        Mono<Long> back = echo
                ? e.receive().take(n).doOnNext(echoed::check).count()
                : Mono.just(0L);
        Mono.zip(e.send(messages).thenReturn(true), back).timeout(guard, timer).subscribe(
                ok -> console.say(streamLine("OK", queued, bytes, echoed, start)),
                err -> console.say(streamLine(PeerConsole.errorName(err), queued, bytes, echoed, start) + " -- "
                        + PeerConsole.message(err)));
    }

    private static String streamLine(String end, AtomicLong queued, AtomicLong bytes, StreamChecker echoed,
                                     long start) {
        return Line.format("STREAM", "end", end, "queued", queued.get(), "bytes", bytes.get(), "echoed",
                echoed.count(), "bad", echoed.bad(), "ms", (System.nanoTime() - start) / 1_000_000,
                "at", PeerConsole.now()) + (echoed.bad() > 0 ? " -- " + echoed.firstProblem() : "");
    }

    // ---- puts, gets and atomics checked against a shadow of the window -------------------------------------------

    private void rma(RemoteMemory remote, long putTarget, Duration guard) {
        Endpoint e = ep;
        long start = System.nanoTime();
        for (long i = 0; i < Window.RMA_SPAN; i++) {
            shadow.set(ValueLayout.JAVA_BYTE, i, Window.initialByte(i));
        }
        RmaTally tally = new RmaTally();
        Mono<Void> rounds = Mono.defer(() -> round(e, remote, tally)).repeat(() -> tally.putBytes < putTarget)
                .then();
        rounds.then(Mono.defer(() -> atomics(e, remote, tally))).timeout(guard, timer).subscribe(null,
                err -> console.say(rmaLine(PeerConsole.errorName(err), tally, start) + " -- "
                        + PeerConsole.message(err)),
                () -> console.say(rmaLine("OK", tally, start) + (tally.firstMismatch == null ? ""
                        : " -- " + tally.firstMismatch)));
    }

    private static final class RmaTally {
        long seed = 17;
        int rounds;
        long putBytes;
        long getBytes;
        int mismatches;
        String firstMismatch;
        int atomics;
        int atomicsBad;

        long next() {
            seed = StreamMessages.mix(seed);
            return seed;
        }
    }

    /**
     * One round: up to {@link #RMA_SLOTS} puts into disjoint slots of the span (so their order does not matter),
     * half the rounds as one streamed put and half as separate puts in flight together; a flush; then the whole
     * span read back and compared with the shadow.
     */
    private Mono<Void> round(Endpoint e, RemoteMemory remote, RmaTally t) {
        long slot = Window.RMA_SPAN / RMA_SLOTS;
        List<RemoteWrite> writes = new ArrayList<>();
        long srcOffset = 0;
        for (int k = 0; k < RMA_SLOTS; k++) {
            int size = PUT_SIZES[(int) Long.remainderUnsigned(t.next(), PUT_SIZES.length)];
            long offset = k * slot + Long.remainderUnsigned(t.next(), slot - size + 1);
            MemorySegment local = src.segment().asSlice(srcOffset, size);
            long state = t.next();
            for (long i = 0; i < size; i++) {
                if ((i & 7) == 0) {
                    state = StreamMessages.mix(state);
                }
                local.set(ValueLayout.JAVA_BYTE, i, (byte) (state >>> ((i & 7) * 8)));
            }
            MemorySegment.copy(local, 0, shadow, offset, size);
            writes.add(new RemoteWrite(src.slice(srcOffset, size), remote.slice(offset, size)));
            t.putBytes += size;
            srcOffset += (size + 4095) & ~4095L;
        }
        Mono<Void> puts = t.rounds % 2 == 0
                ? e.put(Flux.fromIterable(writes))
                : Flux.fromIterable(writes).flatMap(w -> e.put(w.local(), w.remote()), 4).then();
        int chunk = 1 << 20;
        Mono<Void> readBack = Flux.range(0, (int) (Window.RMA_SPAN / chunk))
                .flatMap(i -> e.get(remote.slice((long) i * chunk, chunk), dst.slice((long) i * chunk, chunk)), 4)
                .then();
        return puts.then(e.flush()).then(readBack).then(Mono.fromRunnable(() -> {
            t.rounds++;
            t.getBytes += Window.RMA_SPAN;
            long diff = dst.segment().asSlice(0, Window.RMA_SPAN).mismatch(shadow);
            if (diff >= 0) {
                t.mismatches++;
                if (t.firstMismatch == null) {
                    t.firstMismatch = "round " + t.rounds + ": window byte " + diff + " reads "
                            + dst.segment().get(ValueLayout.JAVA_BYTE, diff) + ", expected "
                            + shadow.get(ValueLayout.JAVA_BYTE, diff);
                }
            }
            console.say("PROGRESS", "op", "rma", "round", t.rounds, "at", PeerConsole.now());
        }));
    }

    /** Swap, 100 concurrent fetch-adds (each previous value seen once), a compare-and-swap, read back by a get. */
    private Mono<Void> atomics(Endpoint e, RemoteMemory remote, RmaTally t) {
        if (!e.capabilities().supports(Operation.ATOMIC_FETCH_ADD_64)
                || !e.capabilities().supports(Operation.ATOMIC_COMPARE_SWAP_64)
                || !e.capabilities().supports(Operation.ATOMIC_SWAP_64)) {
            return Mono.empty();
        }
        RemoteMemory word = remote.slice(Window.ATOMIC_OFFSET, 8);
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        return e.swap(word, 0)
                .thenMany(Flux.range(0, 100).flatMap(i -> e.fetchAdd(word, 1), 8).doOnNext(seen::add))
                .then(e.compareAndSwap(word, 100, 7))
                .flatMap(previous -> e.get(word, dst.slice(0, 8)).then(Mono.fromRunnable(() -> {
                    long now = dst.segment().get(ValueLayout.JAVA_LONG, 0);
                    t.atomics = 102 + seen.size();
                    if (!seen.equals(zeroToNinetyNine()) || previous != 100 || now != 7) {
                        t.atomicsBad++;
                        t.firstMismatch = "atomics: " + seen.size() + " distinct fetch-add results, CAS saw "
                                + previous + ", word now " + now;
                    }
                })))
                .then();
    }

    private static Set<Long> zeroToNinetyNine() {
        Set<Long> s = new HashSet<>();
        for (long i = 0; i < 100; i++) {
            s.add(i);
        }
        return s;
    }

    private String rmaLine(String end, RmaTally t, long start) {
        CRC32C crc = new CRC32C();
        crc.update(shadow.asByteBuffer());
        return Line.format("RMA", "end", end, "rounds", t.rounds, "putBytes", t.putBytes, "getBytes", t.getBytes,
                "mismatches", t.mismatches, "atomics", t.atomics, "atomicsBad", t.atomicsBad,
                "crc", Long.toHexString(crc.getValue()), "span", Window.RMA_SPAN,
                "ms", (System.nanoTime() - start) / 1_000_000, "at", PeerConsole.now());
    }

    // ---- one large put -------------------------------------------------------------------------------------------

    private void put(RemoteMemory remote, long requested, Duration guard) {
        Endpoint e = ep;
        long size = Math.min(Math.min(requested, e.capabilities().maxRmaSize()), Window.LARGE_PUT_MAX);
        MemorySegment local = src.segment().asSlice(0, size);
        long state = size;
        for (long i = 0; i + 8 <= size; i += 8) {
            state = StreamMessages.mix(state);
            local.set(ValueLayout.JAVA_LONG_UNALIGNED, i, state);
        }
        CRC32C crc = new CRC32C();
        crc.update(local.asByteBuffer());
        String sum = Long.toHexString(crc.getValue());
        long start = System.nanoTime();
        console.say("PUT", "started", PeerConsole.now(), "size", size);
        e.put(src.slice(0, size), remote.slice(0, size)).then(e.flush()).timeout(guard, timer).subscribe(null,
                err -> console.say(Line.format("PUT", "end", PeerConsole.errorName(err), "size", size, "crc", sum,
                        "ms", (System.nanoTime() - start) / 1_000_000, "at", PeerConsole.now()) + " -- "
                        + PeerConsole.message(err)),
                () -> console.say("PUT", "end", "OK", "size", size, "crc", sum,
                        "ms", (System.nanoTime() - start) / 1_000_000, "at", PeerConsole.now()));
    }

    // ---- every kind of operation kept pending while a fault lands ------------------------------------------------

    private void pending(RemoteMemory remote, Duration guard) {
        Endpoint e = ep;
        List<String> names = new ArrayList<>();
        List<Mono<Void>> loops = new ArrayList<>();
        List<AtomicLong> counts = new ArrayList<>();

        AtomicLong sent = counter(counts);
        names.add("send");
        loops.add(e.send(Flux.<Buffer, Long>generate(() -> 0L, (seq, sink) -> {
            sink.next(StreamMessages.make(e.memory(), seq));
            sent.incrementAndGet();
            return seq + 1;
        })));

        StreamChecker echoed = new StreamChecker();
        AtomicLong received = counter(counts);
        names.add("receive");
        loops.add(e.receive().doOnNext(b -> {
            echoed.check(b);
            received.incrementAndGet();
        }).then());

        names.add("put");
        loops.add(repeat(() -> e.put(src.slice(0, Window.PENDING_CHUNK),
                remote.slice(Window.PENDING_PUT_OFFSET, Window.PENDING_CHUNK)), counter(counts)));
        names.add("get");
        loops.add(repeat(() -> e.get(remote.slice(Window.PENDING_GET_OFFSET, Window.PENDING_CHUNK),
                dst.slice(0, Window.PENDING_CHUNK)), counter(counts)));
        if (e.capabilities().supports(Operation.ATOMIC_FETCH_ADD_64)) {
            names.add("atomic");
            loops.add(repeat(() -> e.fetchAdd(remote.slice(Window.ATOMIC_OFFSET, 8), 1).then(), counter(counts)));
        }
        names.add("flush");
        loops.add(repeat(e::flush, counter(counts)));

        AtomicInteger open = new AtomicInteger(loops.size());
        AtomicInteger timedOut = new AtomicInteger();
        for (int i = 0; i < loops.size(); i++) {
            String name = names.get(i);
            AtomicLong count = counts.get(i);
            loops.get(i).timeout(guard, timer).subscribe(null, err -> {
                if (PeerConsole.errorName(err).equals("TIMEOUT")) {
                    timedOut.incrementAndGet();
                }
                console.say(Line.format("END", "op", name, "error", PeerConsole.errorName(err), "ops", count.get(),
                        "at", PeerConsole.now()) + " -- " + PeerConsole.message(err));
                if (open.decrementAndGet() == 0) {
                    afterLoss(e, timedOut.get() > 0);
                }
            }, () -> {
                console.say("END", "op", name, "error", "COMPLETED", "ops", count.get(), "at", PeerConsole.now());
                if (open.decrementAndGet() == 0) {
                    afterLoss(e, timedOut.get() > 0);
                }
            });
        }
        console.say(Line.format("PENDING", "loops", names.size()) + " -- " + String.join(",", names));
        // tell the test once every loop has completed an operation: from then on a fault finds them all busy
        AtomicReference<Disposable> watch = new AtomicReference<>();
        watch.set(timer.schedulePeriodically(() -> {
            boolean allBusy = counts.stream().allMatch(c -> c.get() > 0);
            if ((allBusy || open.get() < loops.size()) && watch.get() != null && !watch.get().isDisposed()) {
                console.say("PENDING", "running", allBusy && open.get() == loops.size(), "at", PeerConsole.now());
                watch.get().dispose();
            }
        }, 5, 5, TimeUnit.MILLISECONDS));
    }

    private static AtomicLong counter(List<AtomicLong> counts) {
        AtomicLong c = new AtomicLong();
        counts.add(c);
        return c;
    }

    /** {@code op} again and again, a millisecond apart, until one fails. */
    private Mono<Void> repeat(Supplier<Mono<Void>> op, AtomicLong count) {
        return Mono.defer(op).doOnSuccess(x -> count.incrementAndGet())
                .then(Mono.delay(LOOP_PAUSE, timer)).repeat().then();
    }

    /** Once every loop ended: an operation issued now must fail too, and the endpoint must be closed. */
    private void afterLoss(Endpoint e, boolean timedOut) {
        if (timedOut) {
            e.dispose();
        }
        e.flush().timeout(Duration.ofSeconds(5), timer).map(x -> "OK").defaultIfEmpty("OK")
                .onErrorResume(err -> Mono.just(PeerConsole.errorName(err)))
                .zipWith(e.onClose().timeout(Duration.ofSeconds(10), timer).thenReturn("OK")
                        .onErrorResume(err -> Mono.just(PeerConsole.errorName(err))))
                .subscribe(r -> console.say("LOST", "flushAfter", r.getT1(), "onClose", r.getT2(),
                        "at", PeerConsole.now()));
    }
}
