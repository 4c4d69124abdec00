package dev.rivulet.core.handshake;

import dev.rivulet.core.security.SecuritySettings;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.rivulet.core.error.AuthenticationException;
import dev.rivulet.core.error.ConnectionRefusedException;
import dev.rivulet.core.error.HandshakeException;
import dev.rivulet.core.error.TransportException;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A listener's side of the handshake against a client that sends whatever the fuzzer makes: every decoder of a
 * client message (header, hello, proof, parameters, refusal) on hostile bytes, in any order, cut anywhere.
 *
 * <p>Must hold for every input: the server ends with a typed error ({@link HandshakeException},
 * {@link AuthenticationException}, {@link ConnectionRefusedException}) or accepts; with a shared secret it never
 * accepts and never proves the secret to a client that did not prove it first; whatever it wrote is well formed and
 * ends the conversation (ACCEPT or REFUSE last).
 */
class HandshakeServerFuzzTest {

    private static final byte[] SECRET = "a shared secret of 32 bytes.....".getBytes(StandardCharsets.US_ASCII);

    private static final Handshake.Responder RESPONDER = new Handshake.Responder() {
        @Override
        public String checkService(byte[] service) {
            return service.length > 64 ? "service parameters too long" : null;
        }

        @Override
        public byte[] accept(byte[] params) {
            if (params.length == 0) {
                throw new ConnectionRefusedException("empty parameters");
            }
            return "accepted".getBytes(StandardCharsets.US_ASCII);
        }
    };

    @FuzzTest(maxDuration = "20s")
    void hostileClient(FuzzedDataProvider data) {
        boolean secret = data.consumeBoolean();
        SecuritySettings settings = secret ? SecuritySettings.defaults().secret(SECRET) : SecuritySettings.defaults();
        ScriptedHandshakeIo io = new ScriptedHandshakeIo(data.consumeRemainingAsBytes());
        byte[] params = null;
        try {
            params = Handshake.server(io, settings, Handshake.KIND_STREAM, RESPONDER);
        } catch (HandshakeException | AuthenticationException | ConnectionRefusedException expected) {
            assertThat(expected.getMessage()).isNotBlank();
        } catch (TransportException other) {
            throw new AssertionError("untyped refusal", other);
        }
        List<Integer> wrote = io.writtenTypes();
        if (secret) {
            assertThat(params).as("accepted a client that cannot know the secret").isNull();
            assertThat(wrote).as("proved the secret to an unproven client")
                    .doesNotContain(HandshakeMessages.SERVER_PROOF);
        }
        if (params != null) {
            assertThat(params).isNotEmpty();
            assertThat(wrote).last().isEqualTo(HandshakeMessages.ACCEPT);
        }
        assertThat(wrote).as("only the last message may end the conversation").allSatisfy(t -> {
            if (t == HandshakeMessages.ACCEPT || t == HandshakeMessages.REFUSE) {
                assertThat(wrote.indexOf(t)).isEqualTo(wrote.size() - 1);
            }
        });
    }
}
