package dev.rivulet.gpu.bench;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.progress.IdleStrategy;
import dev.rivulet.gpu.DeviceBuffer;
import dev.rivulet.gpu.DeviceMemory;
import dev.rivulet.gpu.DeviceSlice;
import dev.rivulet.gpu.DeviceTransferConfig;
import dev.rivulet.gpu.DeviceTransfers;
import dev.rivulet.gpu.cuda.CudaMemory;
import dev.rivulet.gpu.host.HostMemoryStandIn;
import dev.rivulet.gpu.ipc.DeviceWindow;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The other process of the IPC benchmark and tests: connects to {@code shm://NAME}, opens device transfers over the
 * connection, and runs commands read line by line from standard input, answering each with one line,
 * {@code OK ...} or {@code ERR <exception> <message>}, on standard output ({@link IpcPeer} drives it):
 *
 * <pre>
 * alloc ID BYTES                 allocate a device buffer
 * fill ID SEED | crc ID          write a pattern into it, or checksum it (CRC32C, hex)
 * put ID WINDOW [OFF LEN]        put the buffer into a window (hex of DeviceWindow.toBytes), or a slice of it
 * get WINDOW ID [OFF LEN]        get a window (or a slice of it) into the buffer
 * time put|get ID WINDOW RUNS    RUNS transfers back to back; answers each one's nanoseconds
 * atomic WINDOW RUNS             RUNS reads of the window's control word (atomic adds of 0); their nanoseconds
 * loop ID WINDOW                 puts until one fails (answers at once; the failure is printed as LOOP-ENDED)
 * stats                          buffers, streams and events of the device memory
 * free ID | exit
 * </pre>
 *
 * Usage: {@code IpcPeerProcess cuda|standin shm://NAME [spin]}; {@code spin}: the polling threads busy-spin
 * instead of sleeping when idle (for latency measurements on a machine with cores to spare).
 */
public final class IpcPeerProcess {

    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    private final DeviceMemory memory;
    private final Endpoint endpoint;
    private final DeviceTransfers transfers;
    private final Map<String, DeviceBuffer> buffers = new HashMap<>();
    private final AtomicLong looped = new AtomicLong();

    private IpcPeerProcess(DeviceMemory memory, Endpoint endpoint, DeviceTransfers transfers) {
        this.memory = memory;
        this.endpoint = endpoint;
        this.transfers = transfers;
    }

    public static void main(String[] args) throws Exception {
        DeviceMemory memory = memory(args[0]);
        Transport shm = Transports.open("shm", config(args.length > 2 && args[2].equals("spin")));
        Endpoint endpoint = shm.connect(args[1]).block(TIMEOUT);
        DeviceTransfers transfers = DeviceTransfers.open(shm, endpoint, memory, DeviceTransferConfig.defaults())
                .block(TIMEOUT);
        IpcPeerProcess p = new IpcPeerProcess(memory, endpoint, transfers);
        System.out.println("READY " + ProcessHandle.current().pid());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.equals("exit")) {
                break;
            }
            String answer;
            try {
                answer = "OK " + p.run(line.trim().split(" "));
            } catch (Throwable e) {
                Throwable c = e.getCause() != null && e instanceof IllegalStateException ? e.getCause() : e;
                answer = "ERR " + c.getClass().getSimpleName() + " " + String.valueOf(c.getMessage())
                        .replace('\n', ' ');
            }
            System.out.println(answer);
        }
        transfers.dispose();
        transfers.onClose().block(TIMEOUT);
        endpoint.dispose();
        p.buffers.values().forEach(DeviceBuffer::close);
        memory.close();
        shm.dispose();
        System.out.println("BYE");
    }

    /** shm://'s configuration: default, or with polling threads that busy-spin when idle. */
    static TransportConfig config(boolean spin) {
        TransportConfig c = TransportConfig.defaults();
        return spin ? c.idleStrategy(IdleStrategy::busySpin) : c;
    }

    /** {@code cuda} (device 0) or {@code standin} (the shareable stand-in). */
    public static DeviceMemory memory(String kind) {
        return switch (kind) {
            case "cuda" -> CudaMemory.open(0);
            case "standin" -> HostMemoryStandIn.shareable();
            default -> throw new IllegalArgumentException("memory must be cuda or standin, not " + kind);
        };
    }

    private String run(String[] c) {
        switch (c[0]) {
            case "alloc" -> {
                buffers.put(c[1], memory.allocate(Long.parseLong(c[2])));
                return c[1];
            }
            case "fill" -> {
                DeviceContent.fill(memory, endpoint.memory(), buffer(c[1]), Long.parseLong(c[2]));
                return c[1];
            }
            case "crc" -> {
                return Long.toHexString(DeviceContent.checksum(memory, endpoint.memory(), buffer(c[1])));
            }
            case "put" -> {
                transfers.put(slice(c[1], c, 3), window(c[2], c, 3)).block(TIMEOUT);
                return "put";
            }
            case "get" -> {
                transfers.get(window(c[1], c, 3), slice(c[2], c, 3)).block(TIMEOUT);
                return "got";
            }
            case "time" -> {
                DeviceSlice local = buffer(c[2]).slice();
                DeviceWindow w = DeviceWindow.fromBytes(HexFormat.of().parseHex(c[3]));
                return timed(c[1].equals("put") ? transfers.put(local, w) : transfers.get(w, local),
                        Integer.parseInt(c[4]));
            }
            case "atomic" -> {
                DeviceWindow w = DeviceWindow.fromBytes(HexFormat.of().parseHex(c[1]));
                return timed(endpoint.fetchAdd(w.control().slice(0, 8), 0).then(), Integer.parseInt(c[2]));
            }
            case "loop" -> {
                DeviceSlice local = buffer(c[1]).slice();
                DeviceWindow w = DeviceWindow.fromBytes(HexFormat.of().parseHex(c[2]));
                Disposable d = transfers.put(local, w).doOnSuccess(v -> looped.incrementAndGet()).repeat()
                        .subscribe(null, e -> System.out.println("LOOP-ENDED " + e.getClass().getSimpleName()));
                return d.isDisposed() ? "ended" : "looping";
            }
            case "looped" -> {
                return Long.toString(looped.get());
            }
            case "stats" -> {
                var s = memory.stats();
                return s.buffers() + " " + s.streams() + " " + s.events();
            }
            case "free" -> {
                buffer(c[1]).close();
                buffers.remove(c[1]);
                return c[1];
            }
            default -> throw new IllegalArgumentException("unknown command " + c[0]);
        }
    }

    /**
     * Runs {@code op} {@code runs} times one after another, each subscribed as the previous one completes (on the
     * thread that completed it: no thread waits between them), and answers each one's nanoseconds.
     */
    private static String timed(Mono<Void> op, int runs) {
        long[] nanos = new long[runs];
        Flux.range(0, runs).concatMap(i -> Mono.defer(() -> {
            long t0 = System.nanoTime();
            return op.doOnSuccess(v -> nanos[i] = System.nanoTime() - t0);
        })).then().block(TIMEOUT);
        StringJoiner times = new StringJoiner(",");
        for (long n : nanos) {
            times.add(Long.toString(n));
        }
        return times.toString();
    }

    private DeviceBuffer buffer(String id) {
        DeviceBuffer b = buffers.get(id);
        if (b == null) {
            throw new IllegalArgumentException("no buffer " + id);
        }
        return b;
    }

    private DeviceSlice slice(String id, String[] c, int windowArg) {
        DeviceBuffer b = buffer(id);
        return c.length > windowArg + 1 ? b.slice(0, Long.parseLong(c[windowArg + 1])) : b.slice();
    }

    private static DeviceWindow window(String hex, String[] c, int at) {
        DeviceWindow w = DeviceWindow.fromBytes(HexFormat.of().parseHex(hex));
        return c.length > at + 1 ? w.slice(Long.parseLong(c[at]), Long.parseLong(c[at + 1])) : w;
    }
}
