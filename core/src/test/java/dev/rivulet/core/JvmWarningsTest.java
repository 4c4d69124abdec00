package dev.rivulet.core;

import dev.rivulet.core.memory.Buffer;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application using Rivulet needs {@code --enable-native-access} (FFM) and nothing else: run in a JVM of its own
 * with only that flag, a client and a server stream messages and close, and the JVM prints no warning (JDK 25 warns
 * once about any use of {@code sun.misc.Unsafe}'s memory access, which libraries such as JCTools' default queues make).
 */
class JvmWarningsTest {

    @Test
    void rivuletNeedsNoFlagBeyondNativeAccessAndPrintsNoWarning() throws IOException, InterruptedException {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                Application.class.getName())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(out).contains("streamed 20000").doesNotContain("WARNING").doesNotContain("Unsafe");
        assertThat(p.exitValue()).isZero();
    }

    /** A small application: a server, a client, a stream, a graceful close. */
    public static final class Application {
        public static void main(String[] args) {
            Transport t = Transports.open("local", TransportConfig.defaults());
            RivuletServer.BoundServer server = RivuletServer.create().runOn(t).bindAddress("local://quiet")
                    .handle(ep -> ep.receive().then()).bindNow();
            Endpoint ep = RivuletClient.create().runOn(t).remoteAddress("local://quiet").connectNow();
            ep.send(Flux.range(0, 20_000).map(i -> ep.memory().allocate(64).length(64))).block(Duration.ofSeconds(30));
            Buffer b = ep.memory().allocate(8);
            b.release();
            ep.closeGracefully(Duration.ofSeconds(5)).block();
            server.disposeNow(Duration.ofSeconds(5));
            t.dispose();
            System.out.println("streamed 20000");
        }
    }
}
