package dev.rivulet.rdma.verbs;

import dev.rivulet.core.memory.Access;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.Set;

import static dev.rivulet.rdma.verbs.sys.VerbsConstants.*;
import static org.assertj.core.api.Assertions.assertThat;

/** What a registration allows: exactly the rights asked for, never a remote right more. */
class VerbsDeviceTest {

    private static final int REMOTE = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC;

    @Test
    void localMemoryIsWritableByTheDeviceAndReachableByNoPeer() {
        assertThat(VerbsDevice.accessFlags(Access.LOCAL)).isEqualTo(IBV_ACCESS_LOCAL_WRITE);
    }

    @Test
    void aReadOnlyGrantLetsTheDeviceNeitherWriteNorServeAnythingButReads() {
        assertThat(VerbsDevice.accessFlags(Set.of(Access.REMOTE_READ))).isEqualTo(IBV_ACCESS_REMOTE_READ);
    }

    @Test
    void remoteWritesAndAtomicsCarryTheLocalWriteVerbsRequires() {
        assertThat(VerbsDevice.accessFlags(Set.of(Access.REMOTE_WRITE)))
                .isEqualTo(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE);
        assertThat(VerbsDevice.accessFlags(Set.of(Access.REMOTE_ATOMIC)))
                .isEqualTo(IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_LOCAL_WRITE);
    }

    @Test
    void everyCombinationOfRightsGivesExactlyThoseRemoteRights() {
        for (int mask = 0; mask < 8; mask++) {
            EnumSet<Access> rights = EnumSet.noneOf(Access.class);
            int expected = 0;
            if ((mask & 1) != 0) {
                rights.add(Access.REMOTE_READ);
                expected |= IBV_ACCESS_REMOTE_READ;
            }
            if ((mask & 2) != 0) {
                rights.add(Access.REMOTE_WRITE);
                expected |= IBV_ACCESS_REMOTE_WRITE;
            }
            if ((mask & 4) != 0) {
                rights.add(Access.REMOTE_ATOMIC);
                expected |= IBV_ACCESS_REMOTE_ATOMIC;
            }
            assertThat(VerbsDevice.accessFlags(rights) & REMOTE).as("%s", rights).isEqualTo(expected);
            assertThat(VerbsDevice.accessFlags(rights) & ~(REMOTE | IBV_ACCESS_LOCAL_WRITE)).as("%s", rights)
                    .isZero();
        }
    }

    @Test
    void aMissingRdmaStackIsToldApartFromAnEmptyOne() {
        assertThat(VerbsDevice.noDevice(38)).contains("kernel has no RDMA support").contains("ENOSYS");
        assertThat(VerbsDevice.noDevice(0)).isEqualTo("no RDMA device: ibv_get_device_list found none");
    }

    @Test
    void portStatesHaveTheirNames() {
        assertThat(VerbsDevice.portState(IBV_PORT_ACTIVE)).isEqualTo("ACTIVE");
        assertThat(VerbsDevice.portState(IBV_PORT_DOWN)).isEqualTo("DOWN");
        assertThat(VerbsDevice.portState(42)).isEqualTo("state 42");
    }
}
