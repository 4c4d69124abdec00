package dev.rivulet.rdma.verbs;

import dev.rivulet.core.error.HandshakeException;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The bytes of a verbs set-up besides core's handshake: service, rdma_cm ticket, queue pair description. */
class SetupMessagesTest {

    @Test
    void aListenerRefusesAnotherMessageSizeOrConnectionKindByName() {
        byte[] ours = SetupMessages.service(65536, SetupMessages.RDMACM);
        assertThat(SetupMessages.checkService(ours, 65536, SetupMessages.RDMACM)).isNull();
        assertThat(SetupMessages.checkService(SetupMessages.service(4096, SetupMessages.RDMACM), 65536,
                SetupMessages.RDMACM)).isEqualTo("this listener runs verbs with verbs.messageSize 65536 and "
                + "verbs.connection rdmacm");
        assertThat(SetupMessages.checkService(SetupMessages.service(65536, SetupMessages.MANUAL), 65536,
                SetupMessages.RDMACM)).isNotNull();
    }

    @Test
    void aTicketRoundTripsAndIsPresentedInTheConnectionsPrivateData() {
        SetupMessages.CmTicket t = SetupMessages.CmTicket.fresh(7471);
        SetupMessages.CmTicket back = SetupMessages.CmTicket.decode(t.encode());
        assertThat(back).isEqualTo(t);
        assertThat(back.cmPort()).isEqualTo(7471);
        byte[] pd = t.privateData();
        assertThat(pd).hasSizeLessThanOrEqualTo(56);
        assertThat(t.presentedIn(pd)).isTrue();
        // what arrives may be zero-padded to the transport's private data size
        assertThat(t.presentedIn(Arrays.copyOf(pd, 56))).isTrue();
        assertThat(SetupMessages.CmTicket.fresh(7471).presentedIn(pd)).as("another ticket").isFalse();
    }

    @Test
    void requestsThatAreNotOursInFormCarryNoTicket() {
        assertThat(SetupMessages.CmTicket.ticketIn(new byte[0])).isNull();
        assertThat(SetupMessages.CmTicket.ticketIn(new byte[56])).as("no magic").isNull();
        assertThat(SetupMessages.CmTicket.ticketIn(null)).isNull();
        byte[] truncated = Arrays.copyOf(SetupMessages.CmTicket.fresh(1).privateData(), 10);
        assertThat(SetupMessages.CmTicket.ticketIn(truncated)).isNull();
    }

    @Test
    void aMalformedTicketIsAHandshakeFailure() {
        assertThatThrownBy(() -> SetupMessages.CmTicket.decode(new byte[5])).isInstanceOf(HandshakeException.class);
        assertThatThrownBy(() -> SetupMessages.CmTicket.decode(new byte[18])).isInstanceOf(HandshakeException.class)
                .hasMessageContaining("port 0");
    }

    @Test
    void aQueuePairDescriptionRoundTrips() {
        byte[] gid = new byte[16];
        gid[10] = (byte) 0xff;
        gid[11] = (byte) 0xff;
        gid[15] = 7;
        SetupMessages.QpInfo q = new SetupMessages.QpInfo(0xabcdef, 0x123456, 0x1234, gid, 3, 16);
        SetupMessages.QpInfo back = SetupMessages.QpInfo.decode(q.encode());
        assertThat(back).isEqualTo(q);
        assertThat(back.hasGid()).isTrue();
        assertThat(new SetupMessages.QpInfo(1, 1, 1, new byte[16], 1, 1).hasGid()).isFalse();
    }

    @Test
    void aDescriptionAPeerCouldNotHaveMeantIsRefused() {
        byte[] ok = new SetupMessages.QpInfo(1, 2, 3, new byte[16], 5, 1).encode();
        assertThatThrownBy(() -> SetupMessages.QpInfo.decode(Arrays.copyOf(ok, ok.length - 1)))
                .isInstanceOf(HandshakeException.class);
        byte[] wideQpn = ok.clone();
        wideQpn[0] = 1; // 25 bits
        assertThatThrownBy(() -> SetupMessages.QpInfo.decode(wideQpn)).isInstanceOf(HandshakeException.class)
                .hasMessageContaining("24 bits");
        byte[] badMtu = ok.clone();
        badMtu[26] = 6;
        assertThatThrownBy(() -> SetupMessages.QpInfo.decode(badMtu)).isInstanceOf(HandshakeException.class)
                .hasMessageContaining("MTU");
    }

    @Test
    void packetSequenceNumbersAre24Bits() {
        for (int i = 0; i < 1000; i++) {
            assertThat(SetupMessages.randomPsn() & ~0xFFFFFF).isZero();
        }
    }
}
