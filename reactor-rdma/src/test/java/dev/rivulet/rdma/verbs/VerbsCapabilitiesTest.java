package dev.rivulet.rdma.verbs;

import dev.rivulet.core.Capabilities;
import dev.rivulet.core.Completion;
import dev.rivulet.core.Operation;
import dev.rivulet.core.TransportConfig;
import org.junit.jupiter.api.Test;

import static dev.rivulet.rdma.verbs.sys.VerbsConstants.*;
import static org.assertj.core.api.Assertions.assertThat;

/** What a verbs endpoint offers, from what the device reports. */
class VerbsCapabilitiesTest {

    private static Capabilities caps(int initiatorDepth, int atomicCap) {
        return VerbsTransport.capabilities("mlx5_0", initiatorDepth, atomicCap, 1L << 31, TransportConfig.defaults(),
                65536, 128);
    }

    @Test
    void aDeviceWithoutAtomicsOffersNone() {
        assertThat(caps(16, IBV_ATOMIC_NONE).operations()).containsExactlyInAnyOrder(Operation.SEND,
                Operation.RECEIVE, Operation.PUT, Operation.GET, Operation.FLUSH, Operation.FENCE);
    }

    @Test
    void atomicsAreThe64BitOnesVerbsCanDo() {
        for (int cap : new int[]{IBV_ATOMIC_HCA, IBV_ATOMIC_GLOB}) {
            assertThat(caps(16, cap).operations()).contains(Operation.ATOMIC_FETCH_ADD_64, Operation.ATOMIC_ADD_64,
                    Operation.ATOMIC_COMPARE_SWAP_64, Operation.ATOMIC_SWAP_64).doesNotContain(
                    Operation.ATOMIC_FETCH_ADD_32, Operation.ATOMIC_ADD_32, Operation.ATOMIC_COMPARE_SWAP_32,
                    Operation.ATOMIC_SWAP_32);
        }
    }

    @Test
    void withoutReadsThereAreNoGetsAndNoAtomics() {
        assertThat(caps(0, IBV_ATOMIC_HCA).operations()).doesNotContain(Operation.GET, Operation.ATOMIC_FETCH_ADD_64);
    }

    @Test
    void onlyAFlushPromisesRemoteCompletion() {
        Capabilities c = caps(16, IBV_ATOMIC_HCA);
        assertThat(c.sendCompletion()).isEqualTo(Completion.LOCAL);
        assertThat(c.putCompletion()).isEqualTo(Completion.LOCAL);
        assertThat(c.flushCompletion()).isEqualTo(Completion.REMOTE);
    }

    @Test
    void theDeviceChecksKeysOfItsOwnNumberingAcrossTheProtectionDomainAndARefusalEndsTheConnection() {
        Capabilities c = caps(16, IBV_ATOMIC_HCA);
        assertThat(c.remoteAccessChecked()).isTrue();
        assertThat(c.remoteKeyBits()).isZero();
        assertThat(c.grantScopeChecked()).isFalse();
        assertThat(c.refusalClosesConnection()).isTrue();
    }

    @Test
    void sizesComeFromTheOptionsAndThePort() {
        Capabilities c = caps(16, IBV_ATOMIC_NONE);
        assertThat(c.transport()).isEqualTo("verbs/mlx5_0");
        assertThat(c.maxMessageSize()).isEqualTo(65536);
        assertThat(c.maxInlineSize()).isEqualTo(128);
        assertThat(c.maxRmaSize()).isEqualTo(1L << 31);
        assertThat(c.maxIov()).isEqualTo(1);
    }
}
