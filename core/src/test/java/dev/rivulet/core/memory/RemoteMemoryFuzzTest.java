package dev.rivulet.core.memory;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.rivulet.core.error.InvalidRequestException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RemoteMemory#fromBytes} on whatever a peer or an out-of-band channel hands over, and {@link
 * RemoteMemory#slice} on the handle it yields. Must hold: malformed bytes give {@link InvalidRequestException} and
 * nothing else; a parsed handle is canonical (it serialises back to exactly the bytes it came from) and has a
 * non-negative length; a slice either fails the same typed way or lies inside the window it was cut from.
 */
class RemoteMemoryFuzzTest {

    @FuzzTest(maxDuration = "15s")
    void handleBytes(FuzzedDataProvider data) {
        long offset = data.consumeLong();
        long length = data.consumeLong();
        byte[] bytes = data.consumeRemainingAsBytes();
        RemoteMemory handle;
        try {
            handle = RemoteMemory.fromBytes(bytes);
        } catch (InvalidRequestException refused) {
            return;
        }
        assertThat(handle.length()).isNotNegative();
        assertThat(handle.toBytes()).as("canonical form").isEqualTo(bytes);
        assertThat(RemoteMemory.fromBytes(handle.toBytes())).isEqualTo(handle);
        RemoteMemory slice;
        try {
            slice = handle.slice(offset, length);
        } catch (InvalidRequestException outside) {
            return;
        }
        assertThat(slice.key()).isEqualTo(handle.key());
        assertThat(slice.length()).isNotNegative().isLessThanOrEqualTo(handle.length());
        assertThat(Long.compareUnsigned(slice.address() - handle.address(), handle.length()))
                .as("slice starts inside the window").isLessThanOrEqualTo(0);
        assertThat(slice.address() - handle.address() + slice.length())
                .as("slice ends inside the window").isLessThanOrEqualTo(handle.length());
    }
}
