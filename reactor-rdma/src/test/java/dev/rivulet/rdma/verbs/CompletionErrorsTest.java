package dev.rivulet.rdma.verbs;

import dev.rivulet.core.engine.OpKind;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.error.InvalidMemoryException;
import dev.rivulet.core.error.MessageTooLargeException;
import dev.rivulet.core.error.ProviderException;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.rdma.verbs.sys.Ibverbs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.HashSet;
import java.util.Set;

import static dev.rivulet.rdma.verbs.sys.VerbsConstants.*;
import static org.assertj.core.api.Assertions.assertThat;

/** Work completion statuses to the exceptions a caller can act on. */
class CompletionErrorsTest {

    @ParameterizedTest
    @EnumSource(value = OpKind.class, names = {"PUT", "GET", "ATOMIC"})
    void aRemoteAccessErrorOnAOneSidedOperationIsTheOneRefusal(OpKind kind) {
        TransportException e = CompletionErrors.forOperation(kind, IBV_WC_REM_ACCESS_ERR, 0x88);
        assertThat(e).isInstanceOf(RemoteAccessException.class).hasMessage(MemoryDomain.REFUSED);
        assertThat(e.getCause()).as("the status stays available for diagnosis").isInstanceOf(ProviderException.class)
                .hasMessageContaining(Ibverbs.wcStatusStr(IBV_WC_REM_ACCESS_ERR)).hasMessageContaining("0x88");
        assertThat(((TransportException) e.getCause()).nativeCode()).isEqualTo(IBV_WC_REM_ACCESS_ERR);
    }

    @Test
    void everyWayATargetRefusesReadsTheSame() {
        Set<String> messages = new HashSet<>();
        for (int status : new int[]{IBV_WC_REM_ACCESS_ERR, IBV_WC_REM_INV_REQ_ERR, IBV_WC_REM_OP_ERR}) {
            for (OpKind kind : new OpKind[]{OpKind.PUT, OpKind.GET, OpKind.ATOMIC}) {
                messages.add(CompletionErrors.forOperation(kind, status, status * 7).getMessage());
            }
        }
        assertThat(messages).containsExactly(MemoryDomain.REFUSED);
    }

    @ParameterizedTest
    @ValueSource(ints = {IBV_WC_RETRY_EXC_ERR, IBV_WC_RNR_RETRY_EXC_ERR, IBV_WC_RESP_TIMEOUT_ERR, IBV_WC_REM_ABORT_ERR,
            IBV_WC_BAD_RESP_ERR, IBV_WC_FATAL_ERR})
    void aPeerThatStoppedAnsweringIsALostConnection(int status) {
        TransportException e = CompletionErrors.forOperation(OpKind.SEND, status, 0x15);
        assertThat(e).isInstanceOf(ConnectionLostException.class);
        assertThat(e.nativeCode()).isEqualTo(status);
        assertThat(e.provider()).isEqualTo("verbs");
        assertThat(e.nativeMessage()).contains(Ibverbs.wcStatusStr(status)).contains("vendor error 0x15");
    }

    @Test
    void retryExhaustionSaysWhichSettingGaveUp() {
        assertThat(CompletionErrors.forOperation(OpKind.PUT, IBV_WC_RETRY_EXC_ERR, 0))
                .hasMessageContaining("verbs.retryCount");
        assertThat(CompletionErrors.forOperation(OpKind.SEND, IBV_WC_RNR_RETRY_EXC_ERR, 0))
                .hasMessageContaining("posted no receive");
    }

    @Test
    void aSendThePeersReceiveQueueRefusedIsALostConnectionNotARefusal() {
        assertThat(CompletionErrors.forOperation(OpKind.SEND, IBV_WC_REM_INV_REQ_ERR, 0))
                .isInstanceOf(ConnectionLostException.class);
        assertThat(CompletionErrors.forOperation(OpKind.SEND, IBV_WC_REM_ACCESS_ERR, 0))
                .isInstanceOf(ConnectionLostException.class);
    }

    @ParameterizedTest
    @ValueSource(ints = {IBV_WC_LOC_PROT_ERR, IBV_WC_LOC_ACCESS_ERR})
    void localMemoryTheRegistrationDoesNotCoverIsInvalidMemory(int status) {
        assertThat(CompletionErrors.forOperation(OpKind.PUT, status, 0)).isInstanceOf(InvalidMemoryException.class);
    }

    @Test
    void aSendLongerThanThePortCarriesIsTooLarge() {
        assertThat(CompletionErrors.forOperation(OpKind.SEND, IBV_WC_LOC_LEN_ERR, 0))
                .isInstanceOf(MessageTooLargeException.class);
    }

    @ParameterizedTest
    @ValueSource(ints = {IBV_WC_LOC_QP_OP_ERR, IBV_WC_MW_BIND_ERR, IBV_WC_GENERAL_ERR, 99})
    void anythingElseIsAProviderError(int status) {
        assertThat(CompletionErrors.forOperation(OpKind.GET, status, 0)).isInstanceOf(ProviderException.class)
                .isNotInstanceOf(RemoteAccessException.class);
    }

    @Test
    void aFlushIsNotAnOutcomeOfItsOwn() {
        assertThat(CompletionErrors.isFlush(IBV_WC_WR_FLUSH_ERR)).isTrue();
        assertThat(CompletionErrors.isFlush(IBV_WC_REM_ACCESS_ERR)).isFalse();
    }

    @Test
    void aReceiveOverflowingThePostedBufferBreaksTheAgreedSize() {
        assertThat(CompletionErrors.forReceive(IBV_WC_LOC_LEN_ERR, 0)).isInstanceOf(CreditProtocolException.class)
                .hasMessageContaining("verbs.messageSize");
        assertThat(CompletionErrors.forReceive(IBV_WC_LOC_PROT_ERR, 0)).isInstanceOf(ConnectionLostException.class);
    }
}
