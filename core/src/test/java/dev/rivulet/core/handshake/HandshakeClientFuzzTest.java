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
 * A client's side of the handshake against a server (or something posing as one) that answers whatever the fuzzer
 * makes: server hello, proof, accept and refusal decoders on hostile bytes.
 *
 * <p>Must hold for every input: a typed error or the server's ACCEPT body; with a shared secret the client never
 * completes and never sends its connection parameters (a libfabric endpoint name, say) to a server that did not
 * prove the secret; whatever it wrote is well formed.
 */
class HandshakeClientFuzzTest {

    private static final byte[] SECRET = "a shared secret of 32 bytes.....".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PARAMS = "client parameters".getBytes(StandardCharsets.US_ASCII);

    @FuzzTest(maxDuration = "20s")
    void hostileServer(FuzzedDataProvider data) {
        boolean secret = data.consumeBoolean();
        SecuritySettings settings = secret ? SecuritySettings.defaults().secret(SECRET) : SecuritySettings.defaults();
        ScriptedHandshakeIo io = new ScriptedHandshakeIo(data.consumeRemainingAsBytes());
        byte[] accepted = null;
        try {
            accepted = Handshake.client(io, settings, Handshake.KIND_STREAM, new byte[]{1, 2, 3}, PARAMS);
        } catch (HandshakeException | AuthenticationException | ConnectionRefusedException expected) {
            assertThat(expected.getMessage()).isNotBlank();
        } catch (TransportException other) {
            throw new AssertionError("untyped failure", other);
        }
        List<Integer> wrote = io.writtenTypes();
        assertThat(wrote).first().isEqualTo(HandshakeMessages.CLIENT_HELLO);
        if (secret) {
            assertThat(accepted).as("completed with a server that cannot know the secret").isNull();
            assertThat(wrote).as("sent its parameters to an unproven server")
                    .doesNotContain(HandshakeMessages.CLIENT_PARAMS);
        }
        if (accepted != null) {
            assertThat(wrote).last().isEqualTo(HandshakeMessages.CLIENT_PARAMS);
        }
    }
}
