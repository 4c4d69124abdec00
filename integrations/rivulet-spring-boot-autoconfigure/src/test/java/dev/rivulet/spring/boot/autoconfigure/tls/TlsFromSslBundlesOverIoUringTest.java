package dev.rivulet.spring.boot.autoconfigure.tls;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.messaging.handler.annotation.MessageMapping;
import org.springframework.stereotype.Controller;
import reactor.test.StepVerifier;

import dev.rivulet.conformance.Requirements;
import dev.rivulet.core.TransportResources;
import dev.rivulet.core.Transports;
import dev.rivulet.core.error.AuthenticationException;
import dev.rivulet.spring.boot.autoconfigure.RivuletServerLifecycle;
import dev.rivulet.spring.requester.RivuletRequester;

/**
 * A server and its clients, separate applications, each securing io_uring with TLS from its own
 * {@code spring.ssl.bundle.*}: a client whose bundle trusts the server's certificate (and is trusted back) is
 * answered; one whose bundle holds another key and trusts only it fails the handshake with
 * {@link AuthenticationException}, at once rather than at a timeout. Skipped where io_uring is unavailable.
 *
 * <p>The key stores are self-signed for {@code localhost} and {@code 127.0.0.1}, made with
 * {@code keytool -genkeypair -keyalg EC -groupname secp256r1 -dname CN=localhost
 * -ext san=dns:localhost,ip:127.0.0.1 -validity 36500 -storetype PKCS12 -storepass secret-test}.
 */
@SpringBootTest(classes = TlsFromSslBundlesOverIoUringTest.SecretApplication.class, properties = {
        "rivulet.server.address=uring://127.0.0.1:0",
        "rivulet.transport.ssl.bundle=server",
        "spring.ssl.bundle.jks.server.keystore.location=classpath:test-ssl.p12",
        "spring.ssl.bundle.jks.server.keystore.password=secret-test",
        "spring.ssl.bundle.jks.server.truststore.location=classpath:test-ssl.p12",
        "spring.ssl.bundle.jks.server.truststore.password=secret-test"})
class TlsFromSslBundlesOverIoUringTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    @Autowired
    RivuletServerLifecycle server;
    @Autowired
    TransportResources resources;

    @BeforeAll
    static void requireIoUring() {
        Requirements.assume(Transports.provider("io_uring").orElseThrow().availability(), "io_uring");
    }

    @Test
    void aClientWhoseBundleTrustsTheServerIsAnswered() {
        assertThat(resources.config().security().usesTls()).isTrue();
        try (ConfigurableApplicationContext client = clientWithKeyStore("test-ssl.p12")) {
            RivuletRequester requester = client.getBean(RivuletRequester.Builder.class)
                    .connectNow(server.boundServer().address());
            try {
                assertThat(requester.route("secret").retrieveMono(String.class).block(TIMEOUT))
                        .isEqualTo("only over TLS");
            } finally {
                requester.requester().dispose();
            }
        }
    }

    @Test
    void aClientWhoseBundleTrustsAnotherKeyFailsTheHandshakeTyped() {
        try (ConfigurableApplicationContext client = clientWithKeyStore("stranger-ssl.p12")) {
            StepVerifier.create(client.getBean(RivuletRequester.Builder.class)
                            .connect(server.boundServer().address()))
                    .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(AuthenticationException.class)
                            .hasMessageContaining("TLS"))
                    .verify(TIMEOUT);
        }
    }

    /** A client-only application whose transports use TLS from a bundle of {@code keyStore}'s key and trust. */
    private static ConfigurableApplicationContext clientWithKeyStore(String keyStore) {
        return new SpringApplicationBuilder(ClientApplication.class).web(WebApplicationType.NONE).properties(
                "rivulet.transport.name=tls-client",
                "rivulet.transport.ssl.bundle=client",
                "spring.ssl.bundle.jks.client.keystore.location=classpath:" + keyStore,
                "spring.ssl.bundle.jks.client.keystore.password=secret-test",
                "spring.ssl.bundle.jks.client.truststore.location=classpath:" + keyStore,
                "spring.ssl.bundle.jks.client.truststore.password=secret-test").run();
    }

    @Controller
    static class SecretController {

        @MessageMapping("secret")
        String secret() {
            return "only over TLS";
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class SecretApplication {

        @Bean
        SecretController secretController() {
            return new SecretController();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class ClientApplication {
    }
}
