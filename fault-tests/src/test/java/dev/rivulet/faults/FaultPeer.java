package dev.rivulet.faults;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.LeakDetector;
import dev.rivulet.core.memory.MemoryRegion;
import reactor.core.publisher.Flux;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.CRC32C;

/**
 * The serving side of a fault scenario, a JVM of its own inside the server namespace. Arguments: the
 * {@link dev.rivulet.core.spi.TransportProvider} class, the address to bind, {@code verify} or {@code echo}, then
 * transport options as {@code key=value}.
 *
 * <p>Every accepted endpoint gets a grant of the whole {@link Window} (read, write, atomics; revoked when the
 * endpoint closes) and has its incoming stream checked by a {@link StreamChecker}; in {@code echo} mode each checked
 * message is also sent back. Lines on stdout:
 * <pre>
 * PID pid=..                     at start
 * ADDRESS address=..             listening
 * READY
 * ACCEPTED id=.. remote=..       per endpoint
 * GRANT id=.. handle=..hex..     that endpoint's grant, as RemoteMemory.toBytes() in hex
 * RECEIVED id=.. count=.. bytes=.. bad=.. end=complete|ExceptionName at=.. -- first problem
 * ECHO id=.. end=OK|ExceptionName at=..
 * ENDED id=.. at=..              the endpoint closed, whichever side closed it
 * CHECKSUM offset=.. length=.. crc=..   answer to "CHECKSUM offset=.. length=.."
 * BASELINE / HEALTH ...          answer to the command of that name ({@link ProcessHealth})
 * </pre>
 * and {@code QUIT} disposes the transport and exits.
 */
public final class FaultPeer {

    private final PeerConsole console = new PeerConsole();
    private final AtomicInteger ids = new AtomicInteger();
    private final Transport transport;
    private final MemorySegment window;
    private final MemoryRegion region;
    private final boolean echo;

    private FaultPeer(Transport transport, boolean echo) {
        this.transport = transport;
        this.echo = echo;
        this.window = Arena.ofShared().allocate(Window.BYTES, 4096); // lives as long as the process
        for (long i = 0; i < Window.BYTES; i++) {
            window.set(ValueLayout.JAVA_BYTE, i, Window.initialByte(i));
        }
        this.region = transport.memory().register(window, Access.REMOTE_READ, Access.REMOTE_WRITE,
                Access.REMOTE_ATOMIC);
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: FaultPeer <provider class> <bind address> verify|echo [key=value ...]");
            System.exit(2);
        }
        LeakDetector.enable();
        new PeerConsole().say("PID", "pid", ProcessHandle.current().pid());
        FaultPeer peer = new FaultPeer(ChildArgs.openTransport(args, 3), args[2].equals("echo"));
        peer.run(args[1]);
    }

    private void run(String bindAddress) {
        Listener listener = transport.bind(bindAddress).block(Duration.ofSeconds(20));
        listener.accepted().subscribe(this::serve);
        console.say("ADDRESS", "address", listener.address());
        console.say("READY");
        console.serve(this::command);
    }

    private void serve(Endpoint ep) {
        int id = ids.incrementAndGet();
        console.say("ACCEPTED", "id", id, "remote", ep.remoteAddress());
        Grant grant = ep.grant(region.slice(), Access.REMOTE_READ, Access.REMOTE_WRITE, Access.REMOTE_ATOMIC);
        console.say("GRANT", "id", id, "handle", HexFormat.of().formatHex(grant.remote().toBytes()));
        StreamChecker checker = new StreamChecker();
        // how the incoming stream ended; in echo mode a failed echo cancels it, and then the echo's error says why
        AtomicReference<String> end = new AtomicReference<>();
        Flux<Buffer> incoming = ep.receive()
                .doOnNext(checker::check)
                .map(Buffer::retain) // the echo sends each buffer on: it takes a reference of its own
                .doOnError(e -> end.compareAndSet(null, PeerConsole.errorName(e)))
                .doOnComplete(() -> end.compareAndSet(null, "complete"));
        Runnable report = () -> console.say(Line.format("RECEIVED", "id", id, "count", checker.count(),
                "bytes", checker.bytes(), "bad", checker.bad(), "end", end.get(), "at", PeerConsole.now())
                + " -- " + checker.firstProblem());
        if (echo) {
            ep.send(incoming).subscribe(null, e -> {
                end.compareAndSet(null, PeerConsole.errorName(e));
                console.say("ECHO", "id", id, "end", PeerConsole.errorName(e), "at", PeerConsole.now());
                report.run();
            }, () -> {
                console.say("ECHO", "id", id, "end", "OK", "at", PeerConsole.now());
                report.run();
            });
        } else {
            incoming.subscribe(Buffer::release, e -> report.run(), report); // retained above, released here
        }
        ep.onClose().subscribe(null, e -> { },
                () -> console.say("ENDED", "id", id, "at", PeerConsole.now()));
    }

    private void command(Line c) {
        switch (c.kind()) {
            case "CHECKSUM" -> {
                long offset = c.getLong("offset");
                long length = c.getLong("length");
                CRC32C crc = new CRC32C();
                crc.update(window.asSlice(offset, length).asByteBuffer());
                console.say("CHECKSUM", "offset", offset, "length", length, "crc", Long.toHexString(crc.getValue()));
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
}
