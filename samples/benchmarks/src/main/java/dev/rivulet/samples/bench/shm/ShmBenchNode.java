package dev.rivulet.samples.bench.shm;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.EndpointStats;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RegisteredSlice;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.core.memory.RemoteWrite;
import dev.rivulet.samples.bench.Ack;
import dev.rivulet.samples.bench.BufferGen;
import dev.rivulet.samples.bench.CommandLoop;
import dev.rivulet.samples.bench.Options;
import dev.rivulet.samples.bench.ResultLine;
import dev.rivulet.samples.bench.TargetClientSide;
import dev.rivulet.samples.bench.TargetServerSide;
import io.aeron.driver.MediaDriver;
import reactor.core.publisher.Flux;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static dev.rivulet.samples.bench.BenchWire.allocated;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * One side of {@link ShmBenchCli}, run in a JVM of its own so that client and server are two processes. A node hosts
 * all three implementations side by side: Rivulet on {@code shm://}, Rivulet on libfabric's {@code shm} provider and
 * Aeron IPC ({@link AeronPeer}); only the one being measured busy-polls ({@link Spin}).
 *
 * <pre>
 * ShmBenchNode server [--idle spin|default] [--depth N] [--shm shm.option=value,...] [--target-bytes N] [--max-size N]
 *                     [--aeron-channel CHANNEL] [--aeron-driver backoff|spin]
 *     prints "READY &lt;shm uri&gt; &lt;fabric uri or -&gt; &lt;aeron directory&gt;", serves until its stdin closes.
 * ShmBenchNode client (the same options) --shm-address URI --fabric-address URI|- --aeron-dir DIR
 *     prints "READY", then answers each command on stdin with one "RESULT k=v ..." (or "ERROR ...") line:
 *     "shm-stream|fabric-stream|aeron-stream SIZE COUNT", "shm-pingpong|fabric-pingpong|aeron-pingpong SIZE COUNT",
 *     "shm-put|fabric-put SIZE COUNT", "memcpy SIZE COUNT", "quit"; "hot shm|fabric|aeron" and "cold" on both.
 * </pre>
 *
 * <p>Rivulet, on either transport, through the public API only: {@code Endpoint.send(Publisher)} of pooled buffers
 * ({@link BufferGen}) to a {@code receive()} subscriber that releases every buffer, ping-pong with
 * {@code send(Buffer)} from inside the client's {@code receive()} subscriber (the server sends the received buffer
 * back), and streamed {@code put(Publisher<RemoteWrite>)} then {@code flush()} into a window the server allocated
 * with {@code MemoryDomain.allocateRegion} (on {@code shm://} a shared mapping the client maps, so a put is a copy
 * into it) and granted to the connection.
 */
public final class ShmBenchNode {

    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    static final String DEFAULT_AERON_CHANNEL = "aeron:ipc?term-length=64m";

    private ShmBenchNode() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: ShmBenchNode server|client [--idle spin|default] [--depth N] [--shm k=v,...] "
                    + "[--target-bytes N] [--max-size N] [--aeron-channel CH] [--aeron-driver spin|backoff] "
                    + "[--shm-address URI --fabric-address URI|- --aeron-dir DIR]");
            System.exit(64);
        }
        Map<String, String> o = Options.parse(args, 1);
        boolean spin = !"default".equals(o.get("idle"));
        int targetBytes = Integer.parseInt(o.getOrDefault("target-bytes", Integer.toString(1 << 20)));
        int maxSize = Integer.parseInt(o.getOrDefault("max-size", Integer.toString(1 << 20)));
        String channel = o.getOrDefault("aeron-channel", DEFAULT_AERON_CHANNEL);
        // --depth: send and receive queue depth (the credit window) and send prefetch of shm:// (libfabric's shm
        // provider cannot post many more receives than the default).
        int depth = Integer.parseInt(o.getOrDefault("depth", Integer.toString(TransportConfig.DEFAULT_QUEUE_DEPTH)));
        TransportConfig shm = config(spin, Spin.SHM, depth);
        // --shm k=v,k=v: shm:// options such as shm.ringBytes or shm.poolBytes, for experiments.
        for (String kv : o.getOrDefault("shm", "").split(",")) {
            if (kv.contains("=")) {
                shm = shm.option(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
            }
        }
        // Busy-polling configured as FabricBenchNode does it: completion queues without a wait object.
        TransportConfig fabric = config(spin, Spin.FABRIC, TransportConfig.DEFAULT_QUEUE_DEPTH)
                .option("fabric.provider", "shm");
        if (spin) {
            fabric = fabric.option("fabric.completionWait", "none");
        }
        switch (args[0]) {
            case "server" -> server(shm, fabric, targetBytes, channel, "spin".equals(o.get("aeron-driver")));
            case "client" -> client(shm, fabric, targetBytes, maxSize, channel, o.get("shm-address"),
                    o.get("fabric-address"), o.get("aeron-dir"));
            default -> {
                System.err.println("unknown role " + args[0]);
                System.exit(64);
            }
        }
        System.exit(0);
    }

    private static TransportConfig config(boolean spin, int impl, int depth) {
        TransportConfig c = TransportConfig.defaults().sendQueueDepth(depth).receiveQueueDepth(depth)
                .sendPrefetch(depth);
        return spin ? c.idleStrategy(() -> Spin.rivulet(impl)) : c;
    }

    /** libfabric's shm provider opened with {@code config}, or null (with the reason printed) where it cannot be. */
    private static Transport openFabric(TransportConfig config) {
        try {
            return Transports.open("libfabric", config);
        } catch (RuntimeException | LinkageError e) {
            System.out.println("fabric-shm unavailable: " + e);
            return null;
        }
    }

    // ============================================================================================== server

    private static void server(TransportConfig shmConfig, TransportConfig fabricConfig, int targetBytes,
                               String channel, boolean driverSpins) throws Exception {
        List<Runnable> closing = new ArrayList<>();
        Transport shm = Transports.open("shm", shmConfig);
        Listener shmListener = serveRivulet(shm, "shm://rivulet-bench-" + ProcessHandle.current().pid(),
                targetBytes);
        closing.add(shmListener::dispose);
        closing.add(shm::dispose);
        Transport fabric = openFabric(fabricConfig);
        String fabricAddress = "-";
        if (fabric != null) {
            Listener l = serveRivulet(fabric, "fabric://127.0.0.1:0?provider=shm", targetBytes);
            fabricAddress = l.address();
            closing.add(0, l::dispose);
            closing.add(fabric::dispose);
        }
        String dir = "/dev/shm/rivulet-aeron-bench-" + ProcessHandle.current().pid();
        try (MediaDriver driver = AeronPeer.launchDriver(dir, driverSpins);
             AeronPeer.Server aeron = new AeronPeer.Server(channel, driver.aeronDirectoryName())) {
            System.out.println("READY " + shmListener.address() + " " + fabricAddress + " "
                    + driver.aeronDirectoryName());
            System.out.flush();
            CommandLoop.serve(Spin::command);
        } finally {
            closing.forEach(Runnable::run);
        }
    }

    /**
     * Binds {@code address}; each connection gets a window of {@code targetBytes} allocated through its endpoint's
     * domain (a shared mapping on shm://), granted to that connection for remote writes and reads and announced to
     * the client in a TARGET message.
     */
    private static Listener serveRivulet(Transport t, String address, int targetBytes) {
        Listener l = t.bind(address).block(TIMEOUT);
        l.accepted().subscribe(ep -> {
            MemoryRegion target = ep.memory().allocateRegion(targetBytes, Access.REMOTE_WRITE, Access.REMOTE_READ);
            ep.onClose().subscribe(null, null, target::close);
            byte[] handle = ep.grant(target.slice(), Access.REMOTE_WRITE, Access.REMOTE_READ).remote().toBytes();
            ep.receive().subscribe(new TargetServerSide(ep, handle, ShmBenchNode::report));
        });
        return l;
    }

    // ============================================================================================== client

    private static void client(TransportConfig shmConfig, TransportConfig fabricConfig, int targetBytes, int maxSize,
                               String channel, String shmAddress, String fabricAddress, String aeronDir)
            throws Exception {
        Transport shm = Transports.open("shm", shmConfig);
        Rivulet onShm = Rivulet.connect("rivulet", "transport=shm", shm, shmAddress, targetBytes);
        Transport fabric = fabricAddress == null || fabricAddress.equals("-") ? null : openFabric(fabricConfig);
        Rivulet onFabric = fabric == null ? null
                : Rivulet.connect("fabric-shm", "transport=libfabric-shm", fabric, fabricAddress, targetBytes);
        try (AeronPeer.Client aeron = new AeronPeer.Client(channel, aeronDir, maxSize)) {
            System.out.println("READY");
            System.out.flush();
            CommandLoop.run(Spin::command, (mode, size, count) -> switch (mode) {
                case "shm-stream" -> onShm.stream(size, count);
                case "shm-pingpong" -> onShm.pingpong(size, (int) count);
                case "shm-put" -> onShm.put(size, count);
                case "fabric-stream" -> need(onFabric).stream(size, count);
                case "fabric-pingpong" -> need(onFabric).pingpong(size, (int) count);
                case "fabric-put" -> need(onFabric).put(size, count);
                case "aeron-stream" -> aeron.stream(size, count);
                case "aeron-pingpong" -> aeron.pingpong(size, (int) count);
                case "memcpy" -> memcpy(size, count);
                default -> throw new IllegalArgumentException("unknown command " + mode);
            });
        }
        onShm.ep.dispose();
        shm.dispose();
        if (onFabric != null) {
            onFabric.ep.dispose();
            fabric.dispose();
        }
    }

    private static Rivulet need(Rivulet r) {
        if (r == null) {
            throw new IllegalStateException("libfabric's shm provider is not available");
        }
        return r;
    }

    /** One Rivulet connection and what the client measures on it. */
    record Rivulet(String impl, String where, Endpoint ep, TargetClientSide cs, RemoteMemory target,
                   MemoryRegion source) {

        static Rivulet connect(String impl, String where, Transport t, String address, int targetBytes)
                throws Exception {
            Endpoint ep = t.connect(address).block(TIMEOUT);
            TargetClientSide cs = new TargetClientSide(ShmBenchNode::report);
            ep.receive().subscribe(cs);
            RemoteMemory target = cs.target.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            MemoryRegion source = t.memory().register(Arena.ofShared().allocate(targetBytes, 4096));
            source.segment().fill((byte) 0x5a);
            return new Rivulet(impl, where, ep, cs, target, source);
        }

        private static long warmOf(long count) {
            return Math.max(1, count / 10);
        }

        String stream(int size, long count) throws Exception {
            BufferGen g = new BufferGen(ep.memory(), size);
            long warmCount = warmOf(count);
            long w0 = allocated();
            Ack warm = cs.phase(ep, g, warmCount, TIMEOUT);
            long w1 = allocated();
            EndpointStats s0 = ep.stats().block(TIMEOUT);
            long a0 = allocated();
            long t0 = System.nanoTime();
            Ack a = cs.phase(ep, g, count, TIMEOUT);
            long a1 = allocated();
            EndpointStats s1 = ep.stats().block(TIMEOUT);
            // What held the sender back, if anything: no credit from the receiver, or no room in the transport.
            return ResultLine.rate(impl, "stream", where, size, count, (a.nanos() - t0) / 1e9, a1 - a0,
                    a.serverAlloc())
                    + ResultLine.allocationSlope(warmCount, w1 - w0, warm.serverAlloc(), count, a1 - a0,
                    a.serverAlloc())
                    + String.format(Locale.ROOT, " credit_stalls=%d retries=%d coalesced_frames=%d",
                    s1.creditStalls() - s0.creditStalls(), s1.noResourceRetries() - s0.noResourceRetries(),
                    s1.coalescedFrames() - s0.coalescedFrames());
        }

        String pingpong(int size, int count) throws Exception {
            return ResultLine.pingpong(impl, where, size, cs.pingpong(ep, size, count, TIMEOUT));
        }

        /** {@code n} puts of the same bytes into the same window as one {@code put(Publisher)}, then a flush. */
        private void puts(RemoteWrite w, long n) {
            ep.put(Flux.fromIterable(Collections.nCopies((int) n, w))).then(ep.flush()).block(TIMEOUT);
        }

        String put(int size, long count) {
            RegisteredSlice local = source.slice(0, size);
            RemoteWrite w = new RemoteWrite(local, target.slice(0, size));
            puts(w, warmOf(count));
            long a0 = allocated();
            long t0 = System.nanoTime();
            puts(w, count);
            long t1 = System.nanoTime();
            long a1 = allocated();
            return ResultLine.rate(impl, "put", where, size, count, (t1 - t0) / 1e9, a1 - a0, -1);
        }
    }

    /**
     * The copy ceiling: {@code count} copies of {@code size} bytes between the same two native segments on this
     * thread with {@code MemorySegment.copy} (the copy a put into a mapped window makes), after a tenth as warm-up.
     */
    static String memcpy(int size, long count) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(size, 4096);
            MemorySegment dst = arena.allocate(size, 4096);
            src.fill((byte) 0x5a);
            dst.fill((byte) 0);
            copies(src, dst, size, Math.max(1, count / 10));
            long a0 = allocated();
            long t0 = System.nanoTime();
            copies(src, dst, size, count);
            long t1 = System.nanoTime();
            long a1 = allocated();
            if (dst.get(JAVA_BYTE, size - 1) != 0x5a) {
                throw new IllegalStateException("copy did not copy");
            }
            return ResultLine.rate("memcpy", "put", "copy=MemorySegment.copy", size, count, (t1 - t0) / 1e9,
                    a1 - a0, -1);
        }
    }

    private static void copies(MemorySegment src, MemorySegment dst, int size, long n) {
        for (long i = 0; i < n; i++) {
            MemorySegment.copy(src, 0, dst, 0, size);
        }
    }

    static void report(Throwable t) {
        System.err.println("shm-bench node: " + t);
    }
}
