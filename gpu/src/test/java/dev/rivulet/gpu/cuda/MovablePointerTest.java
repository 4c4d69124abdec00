package dev.rivulet.gpu.cuda;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JCuda pointer a copy stream moves from copy to copy: on the JCuda on the class path it can be moved, and a
 * moved pointer names exactly the new address (what JCuda's native code reads), as one made for that address does.
 * Needs no CUDA driver.
 */
class MovablePointerTest {

    @Test
    void aMovedPointerIsThePointerMadeForItsAddress() {
        assertThat(MovablePointer.movable()).as("JCuda's address field is reachable").isTrue();
        MovablePointer p = new MovablePointer();
        for (long address : new long[]{0x7f00_1234_5000L, 0x1000L, 0x7f00_1234_5000L + 17}) {
            p.at(address);
            assertThat(p.toString()).isEqualTo(new RawPointer(address).toString());
        }
    }
}
