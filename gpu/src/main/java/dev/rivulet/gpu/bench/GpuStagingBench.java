package dev.rivulet.gpu.bench;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.gpu.DeviceBuffer;
import dev.rivulet.gpu.DeviceMemory;
import dev.rivulet.gpu.DeviceTransferConfig;
import dev.rivulet.gpu.DeviceTransfers;
import dev.rivulet.gpu.PathSelection;
import dev.rivulet.gpu.cuda.CudaMemory;
import dev.rivulet.gpu.host.HostMemoryStandIn;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Device → staged → transport → device throughput against its bound, measured in the same run: the slowest of the
 * device's pinned copy rate each way and the transport's host-to-host rate at the message size the staged path uses
 * for that transfer; with the heap allocated per chunk. Prints a Markdown table per transport. Runs with CUDA where a
 * driver is found, or with the host stand-in ({@code --memory standin}), whose copies are host memory copies: there
 * it measures the pipeline's host-side overhead, not a GPU.
 *
 * <pre>
 * java ... dev.rivulet.gpu.bench.GpuStagingBench [--memory auto|cuda|standin] [--sizes 1M,16M,64M,256M]
 *      [--chunk 1M] [--staging 4] [--iterations 5] [--warmup 2] [--transport local|shm|tcp|all] [--threads 1]
 * </pre>
 *
 * {@code --chunk} is the largest chunk ({@link DeviceTransferConfig#chunkSize(int)}), lowered to the transport's
 * largest message where that is smaller; each size is sent in the chunks {@link
 * DeviceTransferConfig#messageChunkFor(long)} picks, named in the table. Each rate is the median of the timed
 * iterations; "spread" is the slowest and the fastest staged iteration. "bound" is min(H2D, D2H, host→host), the
 * host-to-host rate measured with messages of the same chunk size, and "staged ÷ bound" the pipeline's share of it (its
 * target is 0.85 or more). Host→host sends each message from its own pinned buffer that the device's copy engine
 * filled just before the clock starts, as a staged chunk is when the transport takes it; "host→host warm" sends one
 * buffer again and again, which the processor's cache keeps: a rate the staged path cannot have, shown beside it. "heap B/chunk" is what a transfer allocates beyond a one-chunk transfer, per further
 * chunk: the per-chunk cost at steady state, with each message's fixed cost taken out; "heap B/transfer" is the
 * whole allocation of one transfer, both sides and every thread. Both take the least of the iterations: every thread
 * is counted, and another thread's occasional allocation only ever adds.
 *
 * <p>Sender and receiver share one transport, so with {@code --threads 1} (its default) one polling thread serves both
 * ends and both staging engines, where two processes would each have their own; {@code --threads 2} gives each end
 * a thread of its own, as two processes would.
 */
public final class GpuStagingBench {

    private static final Duration TIMEOUT = Duration.ofMinutes(5);
    private static final List<String> TRANSPORTS = List.of("local", "shm", "tcp");

    private final DeviceMemory memory;
    private final Transport transport;
    private final String transportKind;
    private final String bindAddress;
    private final int chunk;
    private final int staging;
    private final int iterations;
    private final int warmup;
    private final PrintStream out;

    private GpuStagingBench(DeviceMemory memory, Transport transport, String transportKind, String bindAddress,
                            int chunk, int staging, int iterations, int warmup, PrintStream out) {
        this.memory = memory;
        this.transport = transport;
        this.transportKind = transportKind;
        this.bindAddress = bindAddress;
        this.chunk = chunk;
        this.staging = staging;
        this.iterations = iterations;
        this.warmup = warmup;
        this.out = out;
    }

    /**
     * One row of a table: rates in GB/s, the chunk the transfer was cut into, the staged rate's slowest and fastest
     * iteration, and heap bytes per transfer and per chunk beyond the first.
     */
    public record Row(String transport, long size, int chunk, double toDevice, double toHost, double hostToHost,
                      double hostToHostWarm, double staged, double stagedMin, double stagedMax, double heapPerTransfer,
                      double heapPerChunk) {
        /**
         * The slowest stage the staged path cannot beat: a pinned copy either way, or the transport moving host
         * buffers the device has just filled ({@link #hostToHost}).
         */
        public double bound() {
            return Math.min(Math.min(toDevice, toHost), hostToHost);
        }

        public double ratio() {
            return staged / bound();
        }
    }

    public static void main(String[] args) {
        List<Row> rows = run(args, System.out);
        if (rows.isEmpty()) {
            System.exit(2);
        }
    }

    /** Runs the benchmark as {@link #main} does and returns its rows (empty when it could not run). */
    public static List<Row> run(String[] args, PrintStream out) {
        String memoryKind = "auto";
        String transportKind = "local";
        long[] sizes = {1L << 20, 16L << 20, 64L << 20, 256L << 20};
        int chunk = 1 << 20;
        int staging = 4;
        int iterations = 5;
        int warmup = 2;
        int threads = 1;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v = i + 1 < args.length ? args[i + 1] : "";
            switch (a) {
                case "--memory" -> memoryKind = v;
                case "--transport" -> transportKind = v;
                case "--sizes" -> sizes = Arrays.stream(v.split(",")).mapToLong(GpuStagingBench::bytes).toArray();
                case "--chunk" -> chunk = (int) bytes(v);
                case "--staging" -> staging = Integer.parseInt(v);
                case "--iterations" -> iterations = Integer.parseInt(v);
                case "--warmup" -> warmup = Integer.parseInt(v);
                case "--threads" -> threads = Integer.parseInt(v);
                default -> {
                    out.println("unknown argument " + a);
                    return List.of();
                }
            }
            i++;
        }
        List<String> kinds = transportKind.equals("all") ? TRANSPORTS : List.of(transportKind);
        for (String k : kinds) {
            if (!TRANSPORTS.contains(k)) {
                out.println("unknown transport " + k + " (local, shm, tcp or all)");
                return List.of();
            }
        }
        DeviceMemory memory;
        if (memoryKind.equals("standin") || (memoryKind.equals("auto") && !CudaMemory.availability().available())) {
            if (memoryKind.equals("auto")) {
                out.println("CUDA unavailable (" + CudaMemory.availability().reason() + "): using the host stand-in");
            }
            memory = HostMemoryStandIn.create();
        } else {
            memory = CudaMemory.open(0);
        }
        List<Row> rows = new ArrayList<>();
        try {
            for (String k : kinds) {
                Transport transport = open(k, threads);
                try {
                    GpuStagingBench b = new GpuStagingBench(memory, transport, k, bindAddress(k), chunk, staging,
                            iterations, warmup, out);
                    rows.addAll(b.runAll(sizes));
                } finally {
                    transport.dispose();
                }
            }
        } finally {
            memory.close();
        }
        return rows;
    }

    private static Transport open(String kind, int threads) {
        TransportConfig config = TransportConfig.defaults().progressThreads(threads);
        return switch (kind) {
            case "tcp" -> Transports.open("libfabric", config.option("fabric.provider", "tcp"));
            case "shm" -> Transports.open("shm", config);
            default -> Transports.open("local", config);
        };
    }

    private static String bindAddress(String kind) {
        String name = "gpu-bench-" + ProcessHandle.current().pid();
        return switch (kind) {
            case "tcp" -> "fabric://127.0.0.1:0?provider=tcp";
            case "shm" -> "shm://" + name;
            default -> "local://" + name;
        };
    }

    /** A second address for the plain (host-to-host) pair, where the transport does not pick one itself. */
    private String plainAddress() {
        return bindAddress.startsWith("fabric:") ? bindAddress : bindAddress + "-plain";
    }

    private List<Row> runAll(long[] sizes) {
        long max = Arrays.stream(sizes).max().orElseThrow();
        List<Row> rows = new ArrayList<>();
        Listener staged = transport.bind(bindAddress).block(TIMEOUT);
        Listener plain = transport.bind(plainAddress()).block(TIMEOUT);
        Endpoint sendEp = transport.connect(staged.address()).block(TIMEOUT);
        Endpoint recvEp = staged.accepted().blockFirst(TIMEOUT);
        Endpoint plainSend = transport.connect(plain.address()).block(TIMEOUT);
        Endpoint plainRecv = plain.accepted().blockFirst(TIMEOUT);
        // The largest chunk the transport carries as one message, kept a power of two.
        long maxMessage = Math.min(sendEp.capabilities().maxMessageSize(), recvEp.capabilities().maxMessageSize());
        int largest = maxMessage >= chunk ? chunk : Integer.highestOneBit((int) Math.min(maxMessage, 1 << 30));
        DeviceTransferConfig config = DeviceTransferConfig.defaults().chunkSize(largest).stagingBuffers(staging)
                .paths(PathSelection.STAGED);
        out.printf(Locale.ROOT, "memory: %s (device %d), transport: %s (%s), largest chunk %s, %d staging buffers, "
                        + "median of %d (after %d warm-up)%n%n", memory.kind(), memory.device(), transport.name(),
                transportKind, human(largest), staging, iterations, warmup);
        out.println("| size | chunk | device copy H2D GB/s | device copy D2H GB/s | host→host GB/s "
                + "| host→host warm GB/s | bound GB/s | staged GB/s | spread GB/s | staged ÷ bound | heap B/transfer "
                + "| heap B/chunk |");
        out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        DeviceTransfers sender = DeviceTransfers.open(transport, sendEp, memory, config).block(TIMEOUT);
        DeviceTransfers receiver = DeviceTransfers.open(transport, recvEp, memory, config).block(TIMEOUT);
        for (long size : sizes) {
            int c = config.messageChunkFor(size);
            transport.memory().buffers().reserve(c, 4 * staging);
        }
        try (HostDeviceCopies copies = new HostDeviceCopies(transport, memory, max);
             Arena arena = Arena.ofConfined()) {
            DeviceBuffer src = memory.allocate(max);
            DeviceBuffer dst = memory.allocate(max);
            try {
                MemorySegment pattern = arena.allocate(max, 64);
                fill(pattern, 42);
                copies.upload(pattern, src.slice());
                // Transfers of each size first (about 256 MiB or at least 3 of each), so that no row pays for class
                // loading, compilation or the first pinning of pool slabs, and the heap column sees compiled code.
                for (long size : sizes) {
                    for (long n = Math.max(3, Math.min(64, (256L << 20) / size)); n > 0; n--) {
                        transfer(size, src, dst, sender, receiver);
                    }
                }
                // A transfer of one chunk: its allocation is each message's fixed cost, taken out of the per-chunk
                // figure of every row.
                long oneChunk = config.messageChunkFor(1);
                double perMessage = stagedAllocation(oneChunk, src, dst, sender, receiver);
                for (long size : sizes) {
                    Row r = measure(size, config.messageChunkFor(size), perMessage, copies, src, dst, sender, receiver,
                            plainSend, plainRecv, pattern, arena);
                    rows.add(r);
                    out.printf(Locale.ROOT, "| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f–%.2f | %.2f "
                                    + "| %.0f | %.0f |%n", human(size), human(r.chunk()), r.toDevice(), r.toHost(),
                            r.hostToHost(), r.hostToHostWarm(), r.bound(), r.staged(), r.stagedMin(), r.stagedMax(),
                            r.ratio(), r.heapPerTransfer(), r.heapPerChunk());
                }
                out.println();
            } finally {
                sender.dispose();
                receiver.dispose();
                Mono.when(sender.onClose(), receiver.onClose()).block(TIMEOUT);
                src.close();
                dst.close();
            }
        } finally {
            sendEp.dispose();
            recvEp.dispose();
            plainSend.dispose();
            plainRecv.dispose();
            staged.dispose();
            plain.dispose();
        }
        return rows;
    }

    private Row measure(long size, int chunkSize, double perMessage, HostDeviceCopies copies, DeviceBuffer src,
                        DeviceBuffer dst, DeviceTransfers sender, DeviceTransfers receiver, Endpoint plainSend,
                        Endpoint plainRecv, MemorySegment pattern, Arena arena) {
        long[] h2d = new long[iterations];
        long[] d2h = new long[iterations];
        long[] host = new long[iterations];
        long[] warm = new long[iterations];
        long[] staged = new long[iterations];
        for (int i = -warmup; i < iterations; i++) {
            long a = copies.timeToDevice(dst.slice(0, size));
            long b = copies.timeToHost(src.slice(0, size));
            if (i >= 0) {
                h2d[i] = a;
                d2h[i] = b;
            }
        }
        int messages = (int) ((size + chunkSize - 1) / chunkSize);
        for (int i = -warmup; i < iterations; i++) {
            long t = hostToHostFromDevice(copies, src, plainSend, plainRecv, size, chunkSize, messages);
            long w = hostToHostWarm(plainSend, plainRecv, size, chunkSize, messages);
            if (i >= 0) {
                host[i] = t;
                warm[i] = w;
            }
        }
        com.sun.management.ThreadMXBean threads = threads();
        long allocated = Long.MAX_VALUE;
        for (int i = -warmup; i < iterations; i++) {
            long before = threads.getTotalThreadAllocatedBytes();
            long start = System.nanoTime();
            transfer(size, src, dst, sender, receiver);
            long t = System.nanoTime() - start;
            long after = threads.getTotalThreadAllocatedBytes();
            if (i >= 0) {
                staged[i] = t;
                allocated = Math.min(allocated, after - before);
            }
        }
        verify(copies, dst, size, pattern, arena);
        double perTransfer = allocated;
        double perChunk = messages > 1 ? Math.max(0, perTransfer - perMessage) / (messages - 1) : 0;
        long[] sorted = staged.clone();
        Arrays.sort(sorted);
        return new Row(transportKind, size, chunkSize, rate(size, h2d), rate(size, d2h), rate(size, host),
                rate(size, warm), rate(size, staged), size / (sorted[sorted.length - 1] / 1e9) / 1e9, size / (sorted[0] / 1e9) / 1e9,
                perTransfer, perChunk);
    }

    /**
     * Heap allocated by one staged transfer of {@code size} bytes: the least of the timed iterations, since every
     * thread is counted and another thread's occasional allocation only ever adds.
     */
    private double stagedAllocation(long size, DeviceBuffer src, DeviceBuffer dst, DeviceTransfers sender,
                                    DeviceTransfers receiver) {
        com.sun.management.ThreadMXBean threads = threads();
        long allocated = Long.MAX_VALUE;
        for (int i = -warmup; i < Math.max(iterations, 10); i++) {
            long before = threads.getTotalThreadAllocatedBytes();
            transfer(size, src, dst, sender, receiver);
            long after = threads.getTotalThreadAllocatedBytes();
            if (i >= 0) {
                allocated = Math.min(allocated, after - before);
            }
        }
        return allocated;
    }

    private static void transfer(long size, DeviceBuffer src, DeviceBuffer dst, DeviceTransfers sender,
                                 DeviceTransfers receiver) {
        Mono<?> landed = receiver.receiveInto(dst.slice(0, size));
        Mono.when(landed, sender.send(src.slice(0, size))).block(TIMEOUT);
    }

    private static com.sun.management.ThreadMXBean threads() {
        return (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    }

    /**
     * Time to move {@code size} bytes as {@code messages} messages of {@code chunkSize}, host memory to host memory,
     * each from its own registered, pinned buffer that the device's copy engine filled from {@code src} before the
     * clock starts: the bytes are where a staged chunk's are when the transport takes it (written by the device, not
     * by the processor, so not in its cache unless the platform puts device writes there).
     */
    private long hostToHostFromDevice(HostDeviceCopies copies, DeviceBuffer src, Endpoint sendEp, Endpoint recvEp,
                                      long size, int chunkSize, int messages) {
        List<Buffer> buffers = new ArrayList<>(messages);
        try {
            for (int i = 0; i < messages; i++) {
                int length = (int) Math.min(chunkSize, size - (long) i * chunkSize);
                Buffer b = sendEp.memory().allocate(length);
                buffers.add(b);
                if (!memory.isPinned(b.region())) {
                    memory.pinRegion(b.region());
                }
                copies.fillFromDevice(src.slice((long) i * chunkSize, length), b.segment());
            }
            long start = System.nanoTime();
            Mono<Void> received = recvEp.receive().take(messages).then();
            Flux<Buffer> chunks = Flux.fromIterable(buffers).map(Buffer::retain);
            Mono.when(received, sendEp.send(chunks)).block(TIMEOUT);
            return System.nanoTime() - start;
        } finally {
            buffers.forEach(Buffer::release);
        }
    }

    /**
     * Time to move {@code size} bytes as {@code messages} messages of {@code chunkSize}, host memory to host memory,
     * from buffers registered before the clock starts: each message sends one of them again, which the processor's
     * cache keeps.
     */
    private static long hostToHostWarm(Endpoint sendEp, Endpoint recvEp, long size, int chunkSize, int messages) {
        int last = (int) (size - (long) (messages - 1) * chunkSize);
        Buffer full = sendEp.memory().allocate(chunkSize);
        Buffer tail = sendEp.memory().allocate(last);
        try {
            long start = System.nanoTime();
            Mono<Void> received = recvEp.receive().take(messages).then();
            Flux<Buffer> chunks = Flux.range(0, messages).map(i -> i == messages - 1 ? tail.retain() : full.retain());
            Mono.when(received, sendEp.send(chunks)).block(TIMEOUT);
            return System.nanoTime() - start;
        } finally {
            full.release();
            tail.release();
        }
    }

    private static void verify(HostDeviceCopies copies, DeviceBuffer dst, long size, MemorySegment pattern,
                               Arena arena) {
        MemorySegment back = arena.allocate(size, 64);
        copies.download(dst.slice(0, size), back);
        if (back.mismatch(pattern.asSlice(0, size)) != -1) {
            throw new IllegalStateException("staged transfer of " + size + " bytes arrived corrupted at byte "
                    + back.mismatch(pattern.asSlice(0, size)));
        }
    }

    private static double rate(long size, long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        long median = sorted[sorted.length / 2];
        return size / (median / 1e9) / 1e9;
    }

    /** Fills {@code s} with pseudo-random bytes from {@code seed}. */
    public static void fill(MemorySegment s, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        long n = s.byteSize();
        long i = 0;
        for (; i + 8 <= n; i += 8) {
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, i, r.nextLong());
        }
        for (; i < n; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) r.nextInt());
        }
    }

    private static long bytes(String v) {
        String t = v.trim().toUpperCase(Locale.ROOT);
        long unit = 1;
        if (t.endsWith("K")) {
            unit = 1L << 10;
        } else if (t.endsWith("M")) {
            unit = 1L << 20;
        } else if (t.endsWith("G")) {
            unit = 1L << 30;
        }
        if (unit != 1) {
            t = t.substring(0, t.length() - 1);
        }
        return Long.parseLong(t) * unit;
    }

    private static String human(long bytes) {
        if (bytes % (1L << 30) == 0) {
            return bytes / (1L << 30) + " GiB";
        }
        if (bytes % (1L << 20) == 0) {
            return bytes / (1L << 20) + " MiB";
        }
        if (bytes % (1L << 10) == 0) {
            return bytes / (1L << 10) + " KiB";
        }
        return bytes + " B";
    }
}
