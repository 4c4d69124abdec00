package dev.rivulet.rdma.verbs;

import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.error.CreditProtocolException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The control word in a 32-bit verbs immediate. */
class ImmediateWordTest {

    @ParameterizedTest(name = "type {0} with {1} credits")
    @CsvSource({"1, 0", "1, 3", "2, 128", "3, 0", "4, 255", "1, 16777215"})
    void everyWordTheEngineSendsSurvivesTheImmediate(int type, long credits) {
        long word = ControlWord.encode(type, credits);
        int imm = ImmediateWord.encode(word);
        assertThat(ImmediateWord.decode(imm)).isEqualTo(word);
        assertThat(ControlWord.isValid(ImmediateWord.decode(imm))).isTrue();
    }

    @Test
    void theCreditsSitAboveTheTypeByte() {
        assertThat(ImmediateWord.encode(ControlWord.encode(ControlWord.DATA, 3))).isEqualTo(0x301);
    }

    @Test
    void aGrantWiderThan24BitsIsRefusedRatherThanTruncated() {
        assertThatThrownBy(() -> ImmediateWord.encode(ControlWord.encode(ControlWord.CREDIT, 1L << 24)))
                .isInstanceOf(CreditProtocolException.class).hasMessageContaining("16777216");
    }

    @Test
    void anUnknownTypeFromAPeerDecodesToAWordTheEngineRejects() {
        assertThat(ControlWord.isValid(ImmediateWord.decode(0x0000_0109))).isFalse();
        assertThat(ControlWord.isValid(ImmediateWord.decode(0))).isFalse();
    }
}
