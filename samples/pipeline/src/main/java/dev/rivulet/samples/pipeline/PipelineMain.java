package dev.rivulet.samples.pipeline;

import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.error.TransportException;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * Runs the pipeline once over the best transport available (libfabric tcp, else io_uring, else the in-JVM one):
 * a receiver bound on one transport, a sender on another, and a short summary of what each side and the completion
 * observer saw.
 *
 * <pre>
 * --frames N       frames per sensor (2500)
 * --sensors N      sensors (8)
 * --batch N        frames per batch at most (64)
 * --outstanding N  batches waiting for their acknowledgement at most (8)
 * --transport T    libfabric, io_uring or local instead of the best available
 * </pre>
 */
public final class PipelineMain {

    /** Transports in order of preference, with the address a receiver binds there (port 0: any free port). */
    private static final List<List<String>> CANDIDATES = List.of(
            List.of("libfabric", "fabric://127.0.0.1:0?provider=tcp"),
            List.of("io_uring", "uring://127.0.0.1:0"),
            List.of("local", "local://pipeline"));

    private PipelineMain() {
    }

    public static void main(String[] args) {
        int perSensor = 2500;
        int sensors = 8;
        PipelineSettings settings = PipelineSettings.defaults();
        String only = null;
        try {
            for (int i = 0; i < args.length; i += 2) {
                String value = i + 1 < args.length ? args[i + 1] : "";
                switch (args[i]) {
                    case "--frames" -> perSensor = Integer.parseInt(value);
                    case "--sensors" -> sensors = Integer.parseInt(value);
                    case "--batch" -> settings = settings.withBatchSize(Integer.parseInt(value));
                    case "--outstanding" -> settings = settings.withMaxOutstanding(Integer.parseInt(value));
                    case "--transport" -> only = value;
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage() + "\noptions: --frames N --sensors N --batch N "
                    + "--outstanding N --transport libfabric|io_uring|local");
            System.exit(2);
            return;
        }
        boolean ok = run(only, sensors, perSensor, settings, System.out);
        System.exit(ok ? 0 : 1);
    }

    /** Runs once and prints the summary; true when every frame was acknowledged and aggregated once, in order. */
    static boolean run(String only, int sensors, int perSensor, PipelineSettings settings, PrintStream out) {
        RunObserver observer = new RunObserver();
        List<String> passedOver = new ArrayList<>();
        for (List<String> candidate : CANDIDATES) {
            String provider = candidate.get(0);
            if (only != null ? !only.equals(provider) : !available(provider, passedOver)) {
                continue;
            }
            Transport receiving;
            Transport sending;
            try {
                receiving = Transports.open(provider, TransportConfig.defaults());
                sending = Transports.open(provider, TransportConfig.defaults().observer(observer));
            } catch (TransportException e) {
                if (only != null) {
                    throw e;
                }
                passedOver.add(provider + ": " + e.getMessage()); // installed but unusable here: try the next one
                continue;
            }
            // The application knows its message sizes: registering their buffers now keeps registration off the
            // polling threads, where batches and acknowledgements are often sent and receives are posted.
            int batchBytes = Batch.wireSize(settings.batchSize());
            sending.memory().buffers().reserve(batchBytes, 2 * settings.maxOutstanding());
            receiving.memory().buffers().reserve(batchBytes, receiving.capabilities().receiveQueueDepth());
            receiving.memory().buffers().reserve(Ack.WIRE_SIZE, 2 * settings.maxOutstanding());
            try {
                return runOn(receiving, sending, candidate.get(1), observer, sensors, perSensor, settings,
                        passedOver, out);
            } finally {
                sending.dispose();
                receiving.dispose();
            }
        }
        throw new IllegalStateException("no transport to run on: " + passedOver);
    }

    private static boolean runOn(Transport receiving, Transport sending, String bindAddress, RunObserver observer,
                                 int sensors, int perSensor, PipelineSettings settings, List<String> passedOver,
                                 PrintStream out) {
        FrameReceiver receiver = new FrameReceiver();
        RivuletServer.BoundServer server = RivuletServer.create()
                .runOn(receiving)
                .bindAddress(bindAddress)
                .handle(receiver::handle)
                .bindNow(Duration.ofSeconds(10));
        try {
            String runId = "run-" + UUID.randomUUID().toString().substring(0, 8);
            FrameSender sender = new FrameSender(RivuletClient.create().runOn(sending).remoteAddress(server.address()),
                    settings);
            out.printf(Locale.ROOT, "Rivulet pipeline over %s (%s), %s%s%n", receiving.name(), server.address(), runId,
                    passedOver.isEmpty() ? "" : "; passed over " + passedOver);

            long start = System.nanoTime();
            PipelineReport report = sender.run(SensorFrames.generate(sensors, perSensor))
                    .contextWrite(RunObserver.runId(runId))
                    .block(Duration.ofMinutes(5));
            double seconds = (System.nanoTime() - start) / 1e9;
            FrameReceiver.ReceiverStats stats = receiver.stats();

            out.printf(Locale.ROOT, "sender:   %,d frames in %,d batches acknowledged, at most %d outstanding, "
                            + "%d connect retries, %.2f s (%,.0f frames/s)%n", report.frames(), report.batches(),
                    report.maxOutstanding(), sender.connectRetries(), seconds, report.frames() / seconds);
            out.printf(Locale.ROOT, "receiver: %,d frames from %d sensors aggregated in %,d batches, %d duplicates, "
                            + "%d gaps; mean %.2f °C%n", stats.frames(), stats.nextSeq().size(), stats.batches(),
                    stats.duplicates(), stats.gaps(), stats.mean());
            out.printf(Locale.ROOT, "observer: %,d sends (%,d bytes) completed with context %s=%s%n",
                    observer.sends(runId), observer.bytes(runId), RunObserver.RUN_ID, runId);
            boolean ok = stats.complete(sensors, perSensor) && report.frames() == (long) sensors * perSensor
                    && observer.sends(runId) == report.batches();
            out.println(ok ? "OK" : "FAILED");
            return ok;
        } finally {
            server.disposeNow(Duration.ofSeconds(5));
        }
    }

    private static boolean available(String provider, List<String> passedOver) {
        var p = Transports.provider(provider);
        if (p.isPresent() && p.get().availability().available()) {
            return true;
        }
        passedOver.add(provider + ": " + p.map(x -> x.availability().reason()).orElse("not on the class path"));
        return false;
    }
}
