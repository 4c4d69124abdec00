package dev.rivulet.rdma.wire;

import dev.rivulet.core.engine.OpKind;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.ProviderException;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.MemoryDomain;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class OperationErrorsTest {

    @ParameterizedTest
    @EnumSource(value = OpKind.class, names = {"PUT", "GET", "ATOMIC"})
    void aRefusedOneSidedOperationReadsExactlyTheOneRefusalText(OpKind kind) {
        TransportException e = OperationErrors.refused(kind, "tcp", 125, "Operation canceled");
        assertThat(e).isInstanceOf(RemoteAccessException.class).hasMessage(MemoryDomain.REFUSED);
        assertThat(e.getCause()).as("the provider's code stays available").isInstanceOf(ProviderException.class)
                .hasMessageContaining("Operation canceled");
        assertThat(((TransportException) e.getCause()).nativeCode()).isEqualTo(125);
    }

    @Test
    void aSendThePeerRefusedIsALostConnection() {
        assertThat(OperationErrors.refused(OpKind.SEND, "verbs", 10, "remote access error"))
                .isInstanceOf(ConnectionLostException.class);
    }

    @Test
    void theEndOfAConnectionAfterARefusalSaysWhatWasRefused() {
        assertThat(OperationErrors.refusalEnded(OpKind.GET, "the tcp provider ends its connection", "tcp", 125, "x"))
                .hasMessageContaining("the tcp provider ends its connection after a refused get");
    }
}
