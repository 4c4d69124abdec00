package dev.rivulet.docs;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.liveness.LivenessSettings;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.security.SecuritySettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Sinks;

import javax.net.ssl.SSLContext;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The examples of {@code docs/security.md} and {@code docs/reliability.md}, compiled and run. */
class SecurityDocsTest {

    @Test
    void grantingAWindow() {
        Transport transport = Transports.open("local", TransportConfig.defaults());
        Sinks.One<Endpoint> accepted = Sinks.one();
        RivuletServer.BoundServer server = RivuletServer.create().runOn(transport).bindAddress("local://doc-grant")
                .doOnConnection(accepted::tryEmitValue).bindNow();
        Endpoint client = RivuletClient.create().runOn(transport).remoteAddress("local://doc-grant").connectNow();
        Endpoint endpoint = accepted.asMono().block(Duration.ofSeconds(10));
        try (Arena arena = Arena.ofShared()) {
            MemorySegment segment = arena.allocate(16384, 4096);
            // snippet:begin grant
            MemoryRegion region = transport.memory().register(segment,  // grants may give these rights; nothing is
                    Access.REMOTE_READ, Access.REMOTE_WRITE);           // exposed until one is made
            Grant grant = endpoint.grant(region.slice(4096, 8192),      // exactly this window
                    Access.REMOTE_READ, Access.REMOTE_WRITE);            // exactly these rights
            byte[] handle = grant.remote().toBytes();                    // send it to that peer
            // ...
            grant.close();                                               // refused from now on
            // snippet:end
            assertThat(handle).isNotEmpty();
            assertThat(grant.isOpen()).isFalse();
            region.close();
        } finally {
            client.dispose();
            server.disposeNow(Duration.ofSeconds(10));
            transport.dispose();
        }
    }

    @Test
    void securityInOnePlace(@TempDir Path dir) throws Exception {
        Path secretFile = Files.writeString(dir.resolve("secret"), "a secret of more than sixteen bytes",
                StandardCharsets.UTF_8);
        SSLContext sslContext = SSLContext.getDefault();
        // snippet:begin security-config
        TransportConfig config = TransportConfig.defaults()
                .security(SecuritySettings.defaults()
                        .secret(Files.readAllBytes(secretFile))
                        .tls(sslContext)                        // e.g. from Spring Boot's SslBundle
                        .handshakeTimeout(Duration.ofSeconds(5))
                        .maxConnections(256));
        // snippet:end
        assertThat(config.security().usesTls()).isTrue();
    }

    @Test
    void livenessSettings() {
        // snippet:begin liveness
        TransportConfig config = TransportConfig.defaults().liveness(new LivenessSettings(
                Duration.ofSeconds(5),      // heartbeatInterval
                Duration.ofSeconds(20),     // peerTimeout: more than twice the heartbeat interval
                Duration.ofSeconds(30)));   // writeTimeout
        // or options: liveness.heartbeatInterval=5s, liveness.peerTimeout=20s, liveness.writeTimeout=30s
        // snippet:end
        assertThat(config.liveness().validate().peerTimeout()).isEqualTo(Duration.ofSeconds(20));
    }
}
