package dev.rivulet.samples.bench.fabric;

import dev.rivulet.samples.bench.BenchmarksDoc;

import java.util.Locale;

/**
 * The "libfabric" section of {@code docs/benchmarks.md} that {@link FabricBenchCli} writes: one block per provider
 * and idle strategy, and data progress or Rivulet's receive depth where they were set (key "tcp:spin", "sockets:default",
 * "sockets:spin:manual", "sockets:spin:rq2048", ...), see {@link BenchmarksDoc}.
 */
final class FabricBenchDoc {

    static final BenchmarksDoc DOC = new BenchmarksDoc("## libfabric", "## libfabric (issue 3)", "fabric-bench",
            FabricBenchDoc.METHOD, FabricBenchDoc::heading);

    private FabricBenchDoc() {
    }

    private static String heading(String key) {
        String[] k = key.split(":");
        String idle = k.length > 1 && k[1].equals("default") ? "Rivulet with the default idle strategy"
                : "Rivulet busy-polling while it measures";
        StringBuilder extra = new StringBuilder();
        for (int i = 2; i < k.length; i++) {
            if (k[i].startsWith("rq")) {
                extra.append(", Rivulet's receive queue depth ").append(k[i].substring(2));
            } else {
                extra.append(", `FI_PROGRESS_").append(k[i].toUpperCase(Locale.ROOT)).append("` data progress");
            }
        }
        return String.format(Locale.ROOT, "### Results: `%s`, %s%s (written by `FabricBenchCli`)", k[0], idle,
                extra);
    }

    static final String METHOD = """
            Rivulet over libfabric against a native C libfabric program on the **same provider, in the same
            invocation**: `dev.rivulet.samples.bench.fabric.FabricBenchCli` runs both, alternately, several times, and
            writes the blocks below (it replaces only its own block; the text outside them is written by hand).

            **Native baseline** (`samples/benchmarks/src/main/c/fabric_bench.c`, built by the CLI with
            `gcc -O2 -o target/fabric_bench src/main/c/fabric_bench.c -lfabric`): two processes (it forks before
            touching libfabric) that exchange endpoint names over a socketpair, open the provider with the hints
            Rivulet's `FabricDomain` uses (`FI_EP_RDM`, messages and RMA, `FI_CONTEXT | FI_CONTEXT2`, the same
            `mr_mode` bits, `FI_THREAD_SAFE`, first `fi_info` entry) and busy-poll their completion queues on both
            sides (`tcp;ofi_rxm` and `shm` progress data only inside `fi_cq_read`; `sockets` runs a progress thread
            of its own unless both programs ask for manual progress: `--progress manual`, the C program's `-m`).
            With manual progress a side keeps polling while it waits at a barrier for its peer.
            - `stream SIZE COUNT`: one `fi_send` per message, at most 128 outstanding (16 at 1 MiB), each from a
              registered buffer of its own (Rivulet's sender also sends distinct pool buffers); the receiver keeps
              as many receives of SIZE bytes posted and reposts each one as it completes. Timed until the receiver
              has all COUNT messages. Neither side writes or reads the payload beyond an 8-byte header.
            - `write SIZE COUNT`: `fi_write` into one registered target buffer with the same window, then one 8-byte
              `fi_read` (a read after the writes: the data is at the target). `-d` posts every write with
              `fi_writemsg(FI_DELIVERY_COMPLETE)` instead, which is what Rivulet does on `tcp` and `sockets`; on those
              providers the tables compare Rivulet's puts with these (the plain-write rows stay, without a target).
            - `pingpong 64 COUNT`: `fi_send` / `fi_recv` of 64 bytes back and forth; the table gives the **median
              round-trip time** (one-way latency is half of it).

            **Rivulet** (`FabricBenchNode`): a server JVM and a client JVM started by the CLI with its own classpath
            (two processes, like the native program), connected through `fabric://127.0.0.1:0?provider=...`, using
            the public API only. Streaming is `Endpoint.send(Publisher<Buffer>)` of pooled registered buffers
            (`Flux.generate`, an 8-byte sequence header written in place) to a `receive()` subscriber in the other
            JVM that checks the sequence and releases every buffer; timed until that subscriber has seen the last
            message (it answers with a message of its own). Puts are one streamed `put(Publisher<RemoteWrite>)`
            (demand is free send slots, no `Mono` per put) followed by `flush()`, into a buffer the server registered
            and advertised; the extra "one Mono per put" rows issue the same puts as
            `Flux.range(..).flatMap(i -> put(local, remote), window).then(flush())`. Ping-pong is
            `send(Buffer)` from the client's progress thread (inside its `receive()` subscriber), echoed by the
            server sending the received buffer itself back. Queue depths and `sendPrefetch` equal the native window
            (128, or 16 at 1 MiB); `fabric.eagerSize` is 64 KiB, or the message size above that (1 MiB: the eager
            size must cover the largest message, so 1 MiB messages go eager, like the native program's); the extra
            "default 64 KiB eager size" row streams 1 MiB through Rivulet's rendezvous instead. Each JVM runs
            `-Xmx2g`. `--idle spin` (the default here) configures Rivulet for busy polling, as the native program
            is: progress threads busy-poll during each Rivulet measurement through a public `IdleStrategy` that backs
            off like the default one between measurements (so idle JVMs do not take CPU from the native runs), and
            completion queues are opened without a wait fd (`fabric.completionWait=none`, `FI_WAIT_NONE` like the
            native program's); `--idle default` measures the default configuration throughout.

            **Reactor Netty** (`reactor-netty-core`; the tables of issue 3 were taken with its NIO transport, later
            runs get the native epoll transport that `samples/benchmarks/pom.xml` now adds) streams 64-byte fixed-length frames (`FixedLengthFrameDecoder`) between the same
            two JVMs over 127.0.0.1 with `NettyOutbound.send(Publisher<ByteBuf>)`, timed the same way.

            Every child process gets `FI_TCP_IFACE=lo` / `FI_SOCKETS_IFACE=lo`, so both sides use the loopback
            `fi_info` entry (the first entry otherwise names eth0; its traffic is loopback either way); `shm`
            connects the two processes through shared memory (and `process_vm_readv`/`writev` for large
            transfers). Each
            measurement is preceded by an untimed tenth of its count; the Rivulet JVMs also get one untimed pass of
            every measurement before the recorded runs (JIT warm-up). Native and Rivulet alternate which goes
            first from run to run. Before each measurement the CLI waits (up to 2 min) until other processes use
            less than a quarter of the CPUs (`/proc/stat`), and reports how long it waited. Throughput is the median
            over runs, MB = 10^6 bytes.

            ```sh
            . bin/env.sh
            ./mvnw -B -ntp -pl samples/benchmarks -am install -DskipTests          # samples/benchmarks/target/benchmarks.jar
            java -cp samples/benchmarks/target/benchmarks.jar dev.rivulet.samples.bench.fabric.FabricBenchCli --provider tcp
            java -cp samples/benchmarks/target/benchmarks.jar dev.rivulet.samples.bench.fabric.FabricBenchCli --provider tcp \\
                 --idle default --runs 3                                  # the default idle strategy
            java -cp samples/benchmarks/target/benchmarks.jar dev.rivulet.samples.bench.fabric.FabricBenchCli --provider sockets
            java -cp samples/benchmarks/target/benchmarks.jar dev.rivulet.samples.bench.fabric.FabricBenchCli --provider shm
            # options: --runs N (5), --scale F (message counts x F), --sizes 64,4096,65536,1048576, --no-docs
            # the native program alone (from samples/benchmarks/):
            FI_TCP_IFACE=lo target/fabric_bench -p tcp stream 64 200000
            FI_TCP_IFACE=lo target/fabric_bench -p tcp -w 16 -d write 1048576 1500
            FI_TCP_IFACE=lo target/fabric_bench -p tcp pingpong 64 10000
            # allocation per message with JMH (one JVM, both transports): see FabricStreamingBenchmark
            java -jar samples/benchmarks/target/benchmarks.jar FabricStreaming -f 1 -wi 3 -i 5 -w 2s -r 3s -p idle=spin,default -prof gc
            ```
            """;
}
