package dev.rivulet.rdma.fabric;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.rdma.FabricInterop;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RemoteMemory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.test.StepVerifier;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Put and get against memory exposed by a plain C libfabric program (src/test/c/rma_peer.c, compiled with gcc during
 * the test run) that hands over its endpoint name, RMA address, length and key.
 */
@Timeout(60)
class FabricInteropTest {

    private static final int SIZE = 4096;
    private Process peer;
    private Transport transport;

    @AfterEach
    void stop() {
        if (peer != null) {
            peer.destroyForcibly();
        }
        if (transport != null) {
            transport.dispose();
        }
    }

    private static Path compilePeer() throws Exception {
        Path src = Path.of("src/test/c/rma_peer.c").toAbsolutePath();
        Path out = Path.of("target/rma_peer").toAbsolutePath();
        Assumptions.assumeTrue(Files.exists(Path.of("/usr/include/rdma/fabric.h")),
                "libfabric headers missing (apt-get install libfabric-dev): C peer not built");
        Process gcc;
        try {
            gcc = new ProcessBuilder("gcc", "-O2", "-o", out.toString(), src.toString(), "-lfabric")
                    .redirectErrorStream(true).start();
        } catch (java.io.IOException e) {
            Assumptions.abort("gcc not available: " + e.getMessage());
            return null;
        }
        String log = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(gcc.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(gcc.exitValue()).as("gcc: %s", log).isZero();
        return out;
    }

    @Test
    void putAndGetAgainstAPlainLibfabricProgram() throws Exception {
        Path exe = compilePeer();
        ProcessBuilder pb = new ProcessBuilder(exe.toString(), "tcp", String.valueOf(SIZE));
        pb.environment().put("IPATH_NO_BACKTRACE", "1");
        peer = pb.start();
        BufferedReader out = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8));
        Writer in = new OutputStreamWriter(peer.getOutputStream(), StandardCharsets.UTF_8);
        Map<String, String> info = new HashMap<>();
        String line;
        while ((line = out.readLine()) != null && !line.equals("READY")) {
            int sp = line.indexOf(' ');
            info.put(line.substring(0, sp), line.substring(sp + 1));
        }
        assertThat(info).containsKeys("NAME", "ADDR", "LEN", "KEY");
        RemoteMemory remote = new RemoteMemory(Long.parseUnsignedLong(info.get("ADDR")),
                Long.parseLong(info.get("LEN")), Long.parseUnsignedLong(info.get("KEY")), null);

        transport = new FabricTransportProvider().open(TransportConfig.defaults().option("fabric.provider", "tcp"));
        Endpoint ep = FabricInterop.attach(transport, HexFormat.of().parseHex(info.get("NAME")))
                .block(Duration.ofSeconds(20));
        try (Arena arena = Arena.ofShared()) {
            MemoryRegion local = transport.memory().register(arena.allocate(SIZE, 64));
            StepVerifier.create(ep.get(remote, local.slice())).verifyComplete();
            for (int i = 0; i < SIZE; i++) {
                assertThat(local.segment().get(ValueLayout.JAVA_BYTE, i)).as("byte %d", i)
                        .isEqualTo((byte) (i * 7 + 3));
            }
            for (int i = 0; i < SIZE; i++) {
                local.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (255 - i));
            }
            StepVerifier.create(ep.put(local.slice(0, 1024), remote.slice(512, 1024)).then(ep.flush()))
                    .verifyComplete();
            in.write("dump\n");
            in.flush();
            byte[] dumped = HexFormat.of().parseHex(out.readLine().trim());
            for (int i = 0; i < SIZE; i++) {
                byte expected = i >= 512 && i < 1536 ? (byte) (255 - (i - 512)) : (byte) (i * 7 + 3);
                assertThat(dumped[i]).as("C buffer byte %d", i).isEqualTo(expected);
            }
            ep.dispose();
            StepVerifier.create(ep.onClose()).verifyComplete();
            local.close();
        }
        in.write("quit\n");
        in.flush();
        assertThat(peer.waitFor(10, TimeUnit.SECONDS)).isTrue();
    }
}
