package dev.rivulet.gpu;

import dev.rivulet.core.error.InvalidRequestException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DeviceTransferConfigTest {

    @Test
    void defaultsAndCopies() {
        DeviceTransferConfig d = DeviceTransferConfig.defaults();
        assertThat(d.chunkSize()).isEqualTo(1 << 20);
        assertThat(d.stagingBuffers()).isEqualTo(4);
        assertThat(d.paths()).isEqualTo(PathSelection.AUTO);
        DeviceTransferConfig c = d.chunkSize(64 << 10).stagingBuffers(8).paths(PathSelection.STAGED);
        assertThat(c.chunkSize()).isEqualTo(64 << 10);
        assertThat(c.stagingBuffers()).isEqualTo(8);
        assertThat(c.paths()).isEqualTo(PathSelection.STAGED);
        assertThat(d.chunkSize()).as("immutable").isEqualTo(1 << 20);
    }

    @Test
    void refusesWhatCannotWork() {
        DeviceTransferConfig d = DeviceTransferConfig.defaults();
        assertThatThrownBy(() -> d.chunkSize(3000)).isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> d.chunkSize(2 << 20)).isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> d.chunkSize(2048)).isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> d.stagingBuffers(1)).as("no overlap with one").isInstanceOf(
                InvalidRequestException.class);
        assertThatThrownBy(() -> d.paths(null)).isInstanceOf(InvalidRequestException.class);
    }
}
