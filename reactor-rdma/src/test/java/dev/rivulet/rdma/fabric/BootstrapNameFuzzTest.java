package dev.rivulet.rdma.fabric;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.rivulet.core.error.HandshakeException;
import dev.rivulet.rdma.fabric.sys.FiConstants;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The check an endpoint name from a bootstrap client passes before it reaches {@code fi_av_insert}, on names the
 * fuzzer makes, for every address format Rivulet meets (socket addresses for tcp and verbs, shm's strings, fixed
 * binary names such as EFA's) and peers on loopback or elsewhere.
 *
 * <p>Must hold: a bad name is refused with {@link HandshakeException} and nothing else; a socket address that
 * passes has exactly the size of its family, a port, a host address, and (when the check is on) names the host the
 * connection came from or, over loopback, a loopback address; a string name that passes is NUL-terminated, short,
 * of the provider's own scheme, and came over loopback; a binary name that passes has the provider's size.
 */
class BootstrapNameFuzzTest {

    private static final int[] FORMATS = {FiConstants.FI_SOCKADDR, FiConstants.FI_SOCKADDR_IN,
            FiConstants.FI_SOCKADDR_IN6, FiConstants.FI_ADDR_STR, FiConstants.FI_ADDR_EFA};
    private static final byte[] SHM_NAME = "fi_shm://4242:1000:0\0".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EFA_NAME = new byte[32];
    private static final InetAddress[] FROM = {
            InetAddress.getLoopbackAddress(), address(new byte[]{10, 1, 2, 3}), address(new byte[]{
            0x20, 0x01, 0x0d, (byte) 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1})};

    @FuzzTest(maxDuration = "15s")
    void endpointNameFromAPeer(FuzzedDataProvider data) {
        int format = data.pickValue(FORMATS);
        InetAddress from = data.pickValue(FROM);
        boolean checkAddress = data.consumeBoolean();
        byte[] name = data.consumeRemainingAsBytes();
        byte[] ours = format == FiConstants.FI_ADDR_STR ? SHM_NAME : EFA_NAME;
        try {
            Bootstrap.checkName(name, ours, format, from, from, checkAddress, "fuzz");
        } catch (HandshakeException refused) {
            assertThat(refused.getMessage()).isNotBlank();
            return;
        }
        switch (format) {
            case FiConstants.FI_ADDR_STR -> {
                assertThat(name.length).isLessThanOrEqualTo(128);
                assertThat(name[name.length - 1]).isZero();
                String s = new String(name, 0, name.length - 1, StandardCharsets.US_ASCII);
                assertThat(s).startsWith("fi_shm://").doesNotContain("\0");
                assertThat(from.isLoopbackAddress()).as("shm peer came over loopback").isTrue();
            }
            case FiConstants.FI_ADDR_EFA -> assertThat(name).hasSameSizeAs(EFA_NAME);
            default -> {
                int family = (name[0] & 0xFF) | (name[1] & 0xFF) << 8;
                assertThat(family).isIn(2, 10);
                assertThat(name).hasSize(family == 2 ? 16 : 28);
                assertThat((name[2] & 0xFF) << 8 | (name[3] & 0xFF)).as("port").isPositive();
                InetAddress ip = address(family == 2 ? Arrays.copyOfRange(name, 4, 8)
                        : Arrays.copyOfRange(name, 8, 24));
                assertThat(ip.isAnyLocalAddress() || ip.isMulticastAddress()).isFalse();
                if (checkAddress && !from.isLoopbackAddress()) {
                    assertThat(ip).as("names the host the connection came from").isEqualTo(from);
                }
                if (checkAddress && from.isLoopbackAddress()) {
                    // this test's own name holds no address: a loopback peer may name loopback addresses only
                    assertThat(ip.isLoopbackAddress()).as("a loopback peer names a loopback address").isTrue();
                }
            }
        }
    }

    private static InetAddress address(byte[] raw) {
        try {
            return InetAddress.getByAddress(raw);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
