package dev.rivulet.samples.bench.uring;

import dev.rivulet.samples.bench.BenchmarksDoc;

/**
 * The "io_uring / Reactor Netty" section of {@code docs/benchmarks.md} that {@link UringBenchCli} writes: one block
 * per Rivulet idle strategy (key "default" or "spin"), see {@link BenchmarksDoc}.
 */
final class UringBenchDoc {

    static final BenchmarksDoc DOC = new BenchmarksDoc("## io_uring / Reactor Netty",
            "## io_uring / Reactor Netty (issue 4)", "uring-bench", UringBenchDoc.METHOD, UringBenchDoc::heading);

    private UringBenchDoc() {
    }

    private static String heading(String idle) {
        return "### Results: Rivulet " + (idle.equals("spin") ? "busy-polling while it measures"
                : "with the default idle strategy") + " (written by `UringBenchCli`)";
    }

    static final String METHOD = """
            Rivulet over io_uring, Reactor Netty TCP and a plain C TCP program, **on loopback in one invocation**:
            `dev.rivulet.samples.bench.uring.UringBenchCli` runs all three for every measurement, in an order that
            rotates from run to run, and writes the blocks below (it replaces only its own block; the text outside
            them is written by hand).

            **Plain C** (`samples/benchmarks/src/main/c/tcp_bench.c`, built by the CLI with
            `gcc -O2 -o target/tcp_bench src/main/c/tcp_bench.c`): two processes (it forks after `listen`), blocking
            sockets, `TCP_NODELAY`.
            - `stream SIZE COUNT`: one `send()` of SIZE bytes per message (fixed-size messages, so no length prefix)
              from one buffer whose first 8 bytes carry the sequence number; the receiver `recv()`s into a 256 KiB
              buffer until it has COUNT × SIZE bytes and answers with one byte. Timed from the first `send()` to
              that byte.
            - `pingpong 64 COUNT`: 64 bytes there and back, the **median round trip**.

            **Rivulet** (`UringBenchNode`): a server JVM and a client JVM started by the CLI with its own classpath,
            connected through `uring://127.0.0.1:0` (`UringTransportProvider`, default `TransportConfig`: queue depths
            and `sendPrefetch` 128, `uring.*` options at their defaults), public API only. Streaming is
            `Endpoint.send(Publisher<Buffer>)` of pooled buffers from `ep.memory().allocate(size)` (`Flux.generate`,
            an 8-byte sequence header written in place, the rest of the payload not written) to a `receive()`
            subscriber in the other JVM that checks the sequence and releases every buffer; timed until the client
            has the server's answer to the last message. Ping-pong is `send(Buffer)` from the client's progress
            thread (inside its `receive()` subscriber), echoed by the server sending the received buffer itself back.
            `--idle default` (the default here) keeps the default idle strategy; `--idle spin` busy-polls during
            Rivulet's measurements only.

            **Reactor Netty** (`reactor-netty-core` with Netty's native **epoll** transport, which `samples/benchmarks/pom.xml`
            adds; the channel class the client got is printed in the table header): `TcpServer` / `TcpClient` between
            the same two JVMs over 127.0.0.1, frames of a 4-byte length and the message
            (`LengthFieldBasedFrameDecoder`), streamed with `NettyOutbound.send(Publisher<ByteBuf>)` of pooled direct
            buffers (header written, payload not), the same sequence check and the same answer, timed the same way.
            Ping-pong: the client writes each ping with `writeAndFlush` from its inbound subscriber on the event loop,
            the server answers through its `send(Publisher)`.

            Each measurement is preceded by an untimed tenth of its count on the same connection; the JVMs also get
            one untimed pass of every measurement before the recorded runs (JIT warm-up). Before each measurement
            the CLI waits until other processes use less than a quarter of the CPUs (`/proc/stat`), at most 30 s each
            and `--max-wait` (120) seconds in all, and reports how long it waited and what ran busy. Throughput is the
            median over runs, MB = 10^6 bytes; every JVM runs `-Xmx2g`.

            ```sh
            . bin/env.sh
            ./mvnw -B -ntp -pl samples/benchmarks -am install -DskipTests          # samples/benchmarks/target/benchmarks.jar
            java -cp samples/benchmarks/target/benchmarks.jar dev.rivulet.samples.bench.uring.UringBenchCli --runs 3
            java -cp samples/benchmarks/target/benchmarks.jar dev.rivulet.samples.bench.uring.UringBenchCli --runs 3 --idle spin
            # options: --scale F (message counts x F), --sizes 64,4096,65536,1048576, --max-wait S, --no-docs
            # the C program alone (from samples/benchmarks/):
            target/tcp_bench stream 65536 20000
            target/tcp_bench pingpong 64 10000
            ```
            """;
}
