package dev.rivulet.gpu.bench;

import dev.rivulet.core.memory.Access;
import dev.rivulet.gpu.CopyEvent;
import dev.rivulet.gpu.CopyStream;
import dev.rivulet.gpu.DeviceBuffer;
import dev.rivulet.gpu.DeviceMemory;
import dev.rivulet.gpu.DeviceTransferConfig;
import dev.rivulet.gpu.DeviceTransfers;
import dev.rivulet.gpu.PeerMapping;
import dev.rivulet.gpu.ipc.DeviceGrant;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Device-to-device bandwidth between two processes of one host over CUDA IPC, against its bound: a device-to-device
 * copy inside one process ({@code cudaMemcpyAsync} device to device on a stream, its end seen by querying its event,
 * as every Rivulet copy is), the same sizes. This process grants a buffer of each size over {@code shm://} to a
 * second JVM ({@link IpcPeerProcess}), which times puts into it and gets from it back to back; each put and get is
 * one device-to-device copy plus the control word's atomic on the way in (and one on the way out that it does not
 * wait for).
 *
 * <pre>
 * java -cp gpu/target/classes:gpu/target/test-classes:gpu/target/lib/* dev.rivulet.gpu.bench.GpuIpcBench \
 *     --memory cuda --sizes 16M,64M,256M --runs 20
 * </pre>
 *
 * The polling threads of both processes busy-spin when idle ({@code --idle sleep} for the default strategy): each
 * transfer waits for one atomic round trip over {@code shm://}, which a sleeping loop would lengthen by its wake-up.
 *
 * <p>Prints one row per size: the bound's median bandwidth, the puts' and gets' median (10th–90th percentile), and
 * their ratio to the bound.
 */
public final class GpuIpcBench {

    private static final Duration TIMEOUT = Duration.ofMinutes(2);
    private static final int WARMUP = 3;

    private GpuIpcBench() {
    }

    /** Median and spread of one column, in GB/s (10^9 bytes a second). */
    record Column(double median, double p10, double p90) {

        static Column of(long bytes, long[] nanos) {
            double[] gbs = Arrays.stream(nanos).mapToDouble(n -> bytes / (double) n).sorted().toArray();
            return new Column(at(gbs, 0.5), at(gbs, 0.1), at(gbs, 0.9));
        }

        private static double at(double[] sorted, double q) {
            return sorted[(int) Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))];
        }

        String format() {
            return String.format(Locale.ROOT, "%8.1f (%.1f-%.1f)", median, p10, p90);
        }
    }

    public static void main(String[] args) throws Exception {
        String memoryKind = "cuda";
        List<Long> sizes = List.of(16L << 20, 64L << 20, 256L << 20);
        int runs = 20;
        boolean spin = true;
        int warmup = 5_000;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--memory" -> memoryKind = args[++i];
                case "--sizes" -> sizes = Arrays.stream(args[++i].split(",")).map(GpuIpcBench::bytes).toList();
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--idle" -> spin = !args[++i].equals("sleep");
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (--memory cuda|standin, --sizes 16M,64M,256M, --runs N, --idle spin|sleep, --warmup N)");
            }
        }
        run(memoryKind, sizes, runs, spin, warmup, System.out);
    }

    /**
     * With {@code warmup} small transfers each way (and as many atomics and in-process copies) before the first size
     * is timed: a few runs per size leave the path interpreted or half compiled, which shows as a per-transfer cost
     * that shrinks from one size to the next.
     */
    static void run(String memoryKind, List<Long> sizes, int runs, boolean spin, int warmup, PrintStream out)
            throws Exception {
        try (DeviceMemory memory = IpcPeerProcess.memory(memoryKind);
             IpcPeer peer = IpcPeer.start(memoryKind, spin, TIMEOUT)) {
            DeviceTransfers transfers = DeviceTransfers.open(peer.transport(), peer.endpoint(), memory,
                    DeviceTransferConfig.defaults()).block(TIMEOUT);
            out.printf(Locale.ROOT, "GpuIpcBench memory=%s device=%d runs=%d idle=%s (GB/s, median (p10-p90))%n",
                    memoryKind, memory.device(), runs, spin ? "spin" : "sleep");
            out.printf(Locale.ROOT, "%10s %26s %26s %26s %8s %8s %12s%n", "size", "d2d-in-process (bound)",
                    "ipc-put", "ipc-get", "put/bnd", "get/bnd", "atomic-us");
            if (warmup > 0) {
                warmUp(memory, transfers, peer, warmup);
            }
            for (long size : sizes) {
                Column bound = Column.of(size, inProcess(memory, size, runs));
                DeviceBuffer target = memory.allocate(size);
                try (DeviceGrant grant = transfers.grant(target, Access.REMOTE_WRITE, Access.REMOTE_READ)) {
                    String w = IpcPeer.hex(grant.remote());
                    peer.call("alloc s " + size, TIMEOUT);
                    Column put = Column.of(size, timed(peer.call("time put s " + w + " " + (runs + WARMUP),
                            TIMEOUT)));
                    Column get = Column.of(size, timed(peer.call("time get s " + w + " " + (runs + WARMUP),
                            TIMEOUT)));
                    long[] atomic = timed(peer.call("atomic " + w + " " + (runs + WARMUP), TIMEOUT));
                    Arrays.sort(atomic);
                    peer.call("free s", TIMEOUT);
                    grant.revoke().block(TIMEOUT);
                    out.printf(Locale.ROOT, "%10s %26s %26s %26s %8.2f %8.2f %12.1f%n", label(size), bound.format(),
                            put.format(), get.format(), put.median() / bound.median(), get.median() / bound.median(),
                            atomic[atomic.length / 2] / 1e3);
                } finally {
                    target.close();
                }
            }
            transfers.dispose();
            transfers.onClose().block(TIMEOUT);
        }
    }

    /** Runs the timed paths {@code times} times on 64 KiB, so that what is timed next runs compiled. */
    private static void warmUp(DeviceMemory memory, DeviceTransfers transfers, IpcPeer peer, int times)
            throws Exception {
        long size = 64 << 10;
        inProcess(memory, size, times);
        DeviceBuffer target = memory.allocate(size);
        try (DeviceGrant grant = transfers.grant(target, Access.REMOTE_WRITE, Access.REMOTE_READ)) {
            String w = IpcPeer.hex(grant.remote());
            peer.call("alloc warm " + size, TIMEOUT);
            peer.call("time put warm " + w + " " + times, TIMEOUT);
            peer.call("time get warm " + w + " " + times, TIMEOUT);
            peer.call("atomic " + w + " " + times, TIMEOUT);
            peer.call("free warm", TIMEOUT);
            grant.revoke().block(TIMEOUT);
        } finally {
            target.close();
        }
    }

    /** Times {@code runs} device-to-device copies between two buffers of this process, after a warm-up. */
    static long[] inProcess(DeviceMemory memory, long size, int runs) {
        DeviceBuffer a = memory.allocate(size);
        DeviceBuffer b = memory.allocate(size);
        try (CopyStream s = memory.openStream(); CopyEvent e = s.newEvent(); PeerMapping to = memory.mapLocal(b)) {
            long[] nanos = new long[runs];
            for (int i = -WARMUP; i < runs; i++) {
                long t0 = System.nanoTime();
                s.copyToPeer(a, 0, to, 0, size, e);
                while (!e.isComplete()) {
                    Thread.onSpinWait();
                }
                if (i >= 0) {
                    nanos[i] = System.nanoTime() - t0;
                }
            }
            return nanos;
        } finally {
            a.close();
            b.close();
        }
    }

    private static long[] timed(String answer) {
        long[] all = Arrays.stream(answer.split(",")).mapToLong(Long::parseLong).toArray();
        return Arrays.copyOfRange(all, Math.min(WARMUP, all.length - 1), all.length);
    }

    static long bytes(String s) {
        String t = s.trim().toUpperCase(Locale.ROOT);
        long unit = t.endsWith("K") ? 1L << 10 : t.endsWith("M") ? 1L << 20 : t.endsWith("G") ? 1L << 30 : 1;
        return Long.parseLong(unit == 1 ? t : t.substring(0, t.length() - 1)) * unit;
    }

    private static String label(long size) {
        List<String> units = new ArrayList<>(List.of("B", "KiB", "MiB", "GiB"));
        int u = 0;
        double v = size;
        while (v >= 1024 && u < units.size() - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.0f %s", v, units.get(u));
    }
}
