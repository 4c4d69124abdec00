package dev.rivulet.gpu.bench;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;
import dev.rivulet.core.Transports;
import dev.rivulet.gpu.ipc.DeviceWindow;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * This process's side of an {@link IpcPeerProcess}: binds {@code shm://NAME}, starts the other JVM (the running
 * {@code java}, this class path) connecting to it, and sends it commands, one answer each. Lines the other process
 * prints that are no answer go to a listener ({@code LOOP-ENDED ...}) or are echoed.
 */
public final class IpcPeer implements AutoCloseable {

    private static final String END = "\u0000end";

    private final Transport transport;
    private final Listener listener;
    private final Endpoint endpoint;
    private final Process process;
    private final OutputStream in;
    private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
    private final BlockingQueue<String> notices = new LinkedBlockingQueue<>();

    private IpcPeer(Transport transport, Listener listener, Endpoint endpoint, Process process,
                    BlockingQueue<String> lines) {
        this.transport = transport;
        this.listener = listener;
        this.endpoint = endpoint;
        this.process = process;
        this.in = process.getOutputStream();
        Thread.ofPlatform().daemon().name("ipc-peer-" + process.pid()).start(() -> {
            for (;;) {
                String l;
                try {
                    l = lines.take();
                } catch (InterruptedException e) {
                    return;
                }
                if (l.equals(END) || l.startsWith("OK ") || l.startsWith("ERR ") || l.equals("OK")) {
                    answers.add(l);
                    if (l.equals(END)) {
                        notices.add(l);
                        return;
                    }
                } else if (l.startsWith("LOOP-ENDED")) {
                    notices.add(l);
                } else {
                    System.out.println("[" + process.pid() + "] " + l);
                }
            }
        });
    }

    /**
     * Starts the other process with {@code memory} ({@code cuda} or {@code standin}) and waits until it is
     * connected: {@link #endpoint()} is this side of the connection. With {@code spin}, both processes' polling
     * threads busy-spin when idle.
     */
    public static IpcPeer start(String memory, boolean spin, Duration timeout) throws IOException,
            InterruptedException {
        Transport shm = Transports.open("shm", IpcPeerProcess.config(spin));
        String address = "shm://rivulet-ipc-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        Listener listener = shm.bind(address).block(timeout);
        BlockingQueue<Endpoint> accepted = new LinkedBlockingQueue<>();
        listener.accepted().subscribe(accepted::add);
        List<String> cmd = List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                IpcPeerProcess.class.getName(), memory, address, spin ? "spin" : "sleep");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread.ofPlatform().daemon().name("ipc-peer-out-" + p.pid()).start(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String l; (l = out.readLine()) != null; ) {
                    lines.add(l);
                }
            } catch (IOException ended) {
                // the process went: END below
            }
            lines.add(END);
        });
        long end = System.nanoTime() + timeout.toNanos();
        for (;;) {
            String l = lines.poll(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (l == null || l.equals(END)) {
                p.destroyForcibly();
                listener.dispose();
                shm.dispose();
                throw new IOException("IPC peer process " + p.pid() + (l == null ? " did not start in time"
                        : " ended before it was ready"));
            }
            if (l.startsWith("READY")) {
                break;
            }
            System.out.println("[" + p.pid() + "] " + l);
        }
        Endpoint ep = accepted.poll(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (ep == null) {
            p.destroyForcibly();
            throw new IOException("IPC peer process " + p.pid() + " did not connect");
        }
        return new IpcPeer(shm, listener, ep, p, lines);
    }

    public Endpoint endpoint() {
        return endpoint;
    }

    public Transport transport() {
        return transport;
    }

    public Process process() {
        return process;
    }

    /** The answer to {@code command}: what follows {@code OK}, or an {@link IpcPeerException} for {@code ERR}. */
    public String call(String command, Duration timeout) throws IOException, InterruptedException {
        in.write((command + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
        String a = answers.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        if (a == null || a.equals(END)) {
            throw new IOException("IPC peer process " + process.pid() + (a == null ? " did not answer " : " ended "
                    + "before answering ") + command);
        }
        if (a.startsWith("ERR ")) {
            String[] p = a.substring(4).split(" ", 2);
            throw new IpcPeerException(p[0], p.length > 1 ? p[1] : "");
        }
        return a.substring(2).trim();
    }

    /** The next line the other process printed that was no answer ({@code LOOP-ENDED ...}), within {@code timeout}. */
    public String notice(Duration timeout) throws InterruptedException {
        String n = notices.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        return n == null ? "" : n;
    }

    /** {@code w} as the other process's commands take it. */
    public static String hex(DeviceWindow w) {
        return HexFormat.of().formatHex(w.toBytes());
    }

    /**
     * Kills the other process at once (SIGKILL), as a crash would, then deletes the stand-in's shared files it left
     * (a crashed process cannot).
     */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(1, TimeUnit.MINUTES);
        try (var files = java.nio.file.Files.newDirectoryStream(java.nio.file.Path.of("/dev/shm"),
                "rivulet-standin-" + process.pid() + "-*")) {
            for (java.nio.file.Path f : files) {
                java.nio.file.Files.deleteIfExists(f);
            }
        } catch (IOException | RuntimeException e) {
            // none there, or no /dev/shm: nothing to clean
        }
    }

    /** Asks the other process to exit (killing it if it does not in time), then closes this side. */
    @Override
    public void close() throws IOException, InterruptedException {
        if (process.isAlive()) {
            try {
                in.write("exit\n".getBytes(StandardCharsets.UTF_8));
                in.flush();
            } catch (IOException gone) {
                // it ended meanwhile
            }
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(1, TimeUnit.MINUTES);
            }
        }
        endpoint.dispose();
        listener.dispose();
        transport.dispose();
    }

    /** What the other process answered {@code ERR} with: the exception's simple name and message. */
    public static final class IpcPeerException extends RuntimeException {

        private final String type;

        IpcPeerException(String type, String message) {
            super(type + ": " + message);
            this.type = type;
        }

        /** The simple name of the exception the other process failed with. */
        public String type() {
            return type;
        }
    }
}
