package dev.rivulet.conformance;

import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.spi.TransportProvider;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;

/**
 * The second process of {@link CrossProcessKit}. Arguments: the {@link TransportProvider} class, the address to bind,
 * a mode, then transport options as {@code key=value}. It binds, prints {@code ADDRESS <address>} on stdout and
 * echoes every message of every endpoint back to its sender until killed (a message {@link #THROW} makes its
 * handler throw instead). In mode {@code rma} it first registers a window of {@link #RMA_WINDOW} bytes (byte i holds
 * {@link #rmaByte(int)}) and sends its {@link dev.rivulet.core.memory.RemoteMemory} handle as each endpoint's first
 * message.
 */
public final class EchoPeer {

    static final int RMA_WINDOW = 64 << 10;

    private EchoPeer() {
    }

    static byte rmaByte(int i) {
        return (byte) (i * 13 + 1);
    }

    /**
     * A message that makes the peer's handler throw a {@code LinkageError} on its progress loop, as one that needs a
     * class it cannot load does; Reactor lets such an error through, so it reaches the loop.
     */
    public static final String THROW = "throw an Error on the progress loop";

    private static final byte[] THROW_BYTES = THROW.getBytes(java.nio.charset.StandardCharsets.UTF_8);

    private static void throwIfAsked(dev.rivulet.core.memory.Buffer b) {
        if (b.length() == THROW_BYTES.length
                && b.segment().mismatch(MemorySegment.ofArray(THROW_BYTES)) == -1) {
            b.release(); // retained for the echo that will not be sent
            throw new NoClassDefFoundError("asked to fail: " + THROW);
        }
    }

    /**
     * The transport a child process's arguments ask for: the {@link TransportProvider} class is {@code args[0]},
     * transport options as {@code key=value} follow from {@code args[3]} on.
     */
    static Transport open(String[] args) throws ReflectiveOperationException {
        TransportConfig config = TransportConfig.defaults();
        for (int i = 3; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            config = config.option(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        TransportProvider provider = (TransportProvider) Class.forName(args[0]).getDeclaredConstructor().newInstance();
        return provider.open(config);
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: EchoPeer <provider class> <bind address> echo|rma [key=value ...]");
            System.exit(2);
        }
        Transport t = open(args);
        Listener l = t.bind(args[1]).block(Duration.ofSeconds(20));
        boolean rma = args[2].equals("rma");
        Arena arena = Arena.ofShared(); // lives as long as the process
        l.accepted().subscribe(ep -> {
            if (rma) {
                MemorySegment window = arena.allocate(RMA_WINDOW, 4096);
                for (int i = 0; i < RMA_WINDOW; i++) {
                    window.set(ValueLayout.JAVA_BYTE, i, rmaByte(i));
                }
                byte[] handle = ep.grant(t.memory().register(window, Access.REMOTE_READ, Access.REMOTE_WRITE,
                        Access.REMOTE_ATOMIC).slice(), Access.REMOTE_READ,
                        Access.REMOTE_WRITE, Access.REMOTE_ATOMIC).remote().toBytes();
                ep.send(t.memory().allocate(handle.length).write(handle)).subscribe(null, e -> { });
            }
            ep.send(ep.receive().retain().doOnNext(EchoPeer::throwIfAsked)).subscribe(null, e -> { });
        });
        System.out.println("ADDRESS " + l.address());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
