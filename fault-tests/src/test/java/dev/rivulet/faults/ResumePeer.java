package dev.rivulet.faults;

import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.Transport;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.LeakDetector;
import dev.rivulet.core.resume.ResumableSession;
import dev.rivulet.core.resume.ResumeSpec;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32C;

/**
 * The serving side of a resumable-session scenario ({@link ResumeFaultTest}), a JVM of its own inside the server
 * namespace. Arguments: the {@link dev.rivulet.core.spi.TransportProvider} class, the address to bind, the session
 * timeout in milliseconds, then transport options as {@code key=value}.
 *
 * <p>Serves resumable sessions ({@link RivuletServer#handleResumable}): exposes to each session a counter (one 8-byte
 * word, zero) with {@link Access#REMOTE_ATOMIC} and a data window of {@link #DATA_BYTES} with
 * {@link Access#REMOTE_WRITE}, sends their handles as the session's first two messages, and checks the session's
 * incoming messages with a {@link StreamChecker} as its application takes them. Lines on stdout:
 * <pre>
 * PID pid=..                     at start
 * ADDRESS address=..             listening
 * READY
 * SESSION id=.. at=..            a new session (not a resumed one)
 * RECEIVED id=.. count=.. bytes=.. bad=.. end=complete|ExceptionName resumes=.. replayed=.. counter=.. crc=..
 *          at=.. -- first problem      the session's receive() ended; counter: the exposed word's value then;
 *                                      crc: the data window's CRC32C then, in hex
 * ENDED id=.. end=OK|ExceptionName at=.. -- why    the session ended, whichever side ended it
 * BASELINE / HEALTH ...          answer to the command of that name ({@link ProcessHealth})
 * </pre>
 * and {@code QUIT} disposes the transport and exits.
 */
public final class ResumePeer {

    /** The counter is updated by the session's atomics on its own thread: read it as they write it. */
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();

    /** The data window each session gets: what {@code ResumeClient}'s PUTS fills. */
    static final int DATA_BYTES = 8 << 20;

    private final PeerConsole console = new PeerConsole();
    private final AtomicInteger ids = new AtomicInteger();
    private final Transport transport;
    private final ResumeSpec spec;

    private ResumePeer(Transport transport, ResumeSpec spec) {
        this.transport = transport;
        this.spec = spec;
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: ResumePeer <provider class> <bind address> <session timeout ms> "
                    + "[key=value ...]");
            System.exit(2);
        }
        LeakDetector.enable();
        new PeerConsole().say("PID", "pid", ProcessHandle.current().pid());
        ResumeSpec spec = ResumeSpec.defaults().sessionTimeout(Duration.ofMillis(Long.parseLong(args[2])));
        new ResumePeer(ChildArgs.openTransport(args, 3), spec).run(args[1]);
    }

    private void run(String bindAddress) {
        RivuletServer.BoundServer server = RivuletServer.create()
                .bindAddress(bindAddress)
                .runOn(transport)
                .handleResumable(spec, this::serve)
                .bindNow(Duration.ofSeconds(20));
        console.say("ADDRESS", "address", server.address());
        console.say("READY");
        console.serve(this::command);
    }

    private Mono<Void> serve(ResumableSession session) {
        int id = ids.incrementAndGet();
        console.say("SESSION", "id", id, "at", PeerConsole.now());
        session.onClose().subscribe(null,
                e -> console.say(Line.format("ENDED", "id", id, "end", PeerConsole.errorName(e), "at",
                        PeerConsole.now()) + " -- " + PeerConsole.message(e)),
                () -> console.say("ENDED", "id", id, "end", "OK", "at", PeerConsole.now()));
        StreamChecker checker = new StreamChecker();
        // Collected with the session's last reference to it: the window is withdrawn when the session ends.
        MemorySegment counter = Arena.ofAuto().allocate(Long.BYTES, Long.BYTES);
        MemorySegment data = Arena.ofAuto().allocate(DATA_BYTES, Long.BYTES);
        byte[] counterHandle = session.expose(counter, Access.REMOTE_ATOMIC).remote().toBytes();
        byte[] dataHandle = session.expose(data, Access.REMOTE_WRITE).remote().toBytes();
        Mono<Void> receiving = session.receive()
                .doOnNext(m -> checker.check(MemorySegment.ofArray(m)))
                .doOnComplete(() -> received(id, session, checker, counter, data, "complete"))
                .doOnError(e -> received(id, session, checker, counter, data, PeerConsole.errorName(e)))
                .onErrorResume(e -> Mono.empty()) // the session has ended, and ENDED says why
                .then();
        Mono<Void> handles = session.send(Flux.just(counterHandle, dataHandle)).onErrorResume(e -> Mono.empty());
        return Mono.when(handles, receiving);
    }

    private void received(int id, ResumableSession session, StreamChecker checker, MemorySegment counter,
                          MemorySegment data, String end) {
        CRC32C crc = new CRC32C();
        crc.update(data.asByteBuffer());
        console.say(Line.format("RECEIVED", "id", id, "count", checker.count(), "bytes", checker.bytes(),
                "bad", checker.bad(), "end", end, "resumes", session.resumes(), "replayed", session.replayed(),
                "counter", (long) WORD.getVolatile(counter, 0L), "crc", Long.toHexString(crc.getValue()),
                "at", PeerConsole.now())
                + " -- " + checker.firstProblem());
    }

    private void command(Line c) {
        switch (c.kind()) {
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
}
