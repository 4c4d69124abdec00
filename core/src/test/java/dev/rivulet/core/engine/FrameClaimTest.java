package dev.rivulet.core.engine;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FrameClaimTest {

    private final MemorySegment frame = Arena.ofAuto().allocate(64);
    private final FrameClaim claim = new FrameClaim(16);

    @Test
    void writesLandAtTheClaimsOffsetInNativeOrder() {
        claim.open(frame, 8);
        claim.putLong(0, 0x1122334455667788L).putInt(8, 7).putShort(12, (short) 3).putByte(14, (byte) 1);
        assertThat(frame.get(ValueLayout.JAVA_LONG_UNALIGNED, 8)).isEqualTo(0x1122334455667788L);
        assertThat(frame.get(ValueLayout.JAVA_INT_UNALIGNED, 16)).isEqualTo(7);
        assertThat(frame.get(ValueLayout.JAVA_SHORT_UNALIGNED, 20)).isEqualTo((short) 3);
        assertThat(frame.get(ValueLayout.JAVA_BYTE, 22)).isEqualTo((byte) 1);
    }

    @Test
    void aWritePastTheClaimFailsAndLeavesTheFrameAlone() {
        claim.open(frame, 8);
        assertThatThrownBy(() -> claim.putLong(9, -1L)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> claim.putBytes(0, new byte[17])).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> claim.putInt(-1, 1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(frame.asSlice(24, 40).toArray(ValueLayout.JAVA_BYTE)).containsOnly((byte) 0);
        assertThat(frame.asSlice(0, 8).toArray(ValueLayout.JAVA_BYTE)).containsOnly((byte) 0);
    }

    @Test
    void theSegmentSpansExactlyTheClaim() {
        claim.open(frame, 8);
        MemorySegment s = claim.segment();
        assertThat(s.byteSize()).isEqualTo(16);
        assertThat(s.address()).isEqualTo(frame.address() + 8);
    }

    @Test
    void aClosedClaimTakesNoWrite() {
        claim.open(frame, 8);
        claim.close();
        assertThatThrownBy(() -> claim.putByte(0, (byte) 1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(claim::segment).isInstanceOf(IllegalStateException.class);
    }
}
