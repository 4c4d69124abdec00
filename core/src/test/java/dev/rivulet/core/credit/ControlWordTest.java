package dev.rivulet.core.credit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ControlWordTest {

    @Test
    void encodesTypeAndCredits() {
        long w = ControlWord.encode(ControlWord.DATA, 0xFFFF_FFFFL);
        assertThat(ControlWord.type(w)).isEqualTo(ControlWord.DATA);
        assertThat(ControlWord.credits(w)).isEqualTo(0xFFFF_FFFFL);
        assertThat(ControlWord.isValid(w)).isTrue();
    }

    @Test
    void rejectsReservedBitsUnknownTypesAndOutOfRangeCredits() {
        assertThat(ControlWord.isValid(ControlWord.encode(ControlWord.CREDIT, 3) | 0x100)).isFalse();
        assertThat(ControlWord.isValid(0)).isFalse();
        assertThat(ControlWord.isValid(9)).isFalse();
        assertThatThrownBy(() -> ControlWord.encode(ControlWord.CREDIT, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ControlWord.encode(ControlWord.CREDIT, 1L << 32))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
