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
    void chunksUpTo16MiB() {
        assertThat(DeviceTransferConfig.defaults().chunkSize(16 << 20).chunkSize()).isEqualTo(16 << 20);
        assertThat(DeviceTransferConfig.defaults().chunkSize(2 << 20).chunkSize()).isEqualTo(2 << 20);
    }

    @Test
    void eachTransferIsCutIntoEnoughPiecesToOverlapWithinTheLargestChunk() {
        DeviceTransferConfig c = DeviceTransferConfig.defaults().chunkSize(16 << 20).stagingBuffers(4);
        assertThat(c.chunkFor(1 << 20)).as("1 MiB: 4 x 256 KiB").isEqualTo(256 << 10);
        assertThat(c.chunkFor(16 << 20)).as("16 MiB: 8 x 2 MiB").isEqualTo(2 << 20);
        assertThat(c.chunkFor(64 << 20)).as("64 MiB: 8 x 8 MiB").isEqualTo(8 << 20);
        assertThat(c.chunkFor(256L << 20)).as("256 MiB: 16 x 16 MiB").isEqualTo(16 << 20);
        assertThat(c.chunkFor((16 << 20) + 1)).as("just over: the next power of two").isEqualTo(4 << 20);
        assertThat(c.chunkFor(0)).isEqualTo(256 << 10);
        assertThat(c.chunkFor(100)).as("never below 256 KiB").isEqualTo(256 << 10);
        assertThat(c.chunkFor(1L << 40)).isEqualTo(16 << 20);

        assertThat(c.stagingBuffers(8).chunkFor(16 << 20)).as("more staging buffers, more pieces")
                .isEqualTo(1 << 20);
        DeviceTransferConfig small = DeviceTransferConfig.defaults().chunkSize(64 << 10);
        assertThat(small.chunkFor(100)).as("a chunk size below the floor is used as it is").isEqualTo(64 << 10);
        assertThat(small.chunkFor(64L << 20)).isEqualTo(64 << 10);
    }

    @Test
    void messagesAreCutIntoChunksOfAtMostOneMebibyte() {
        DeviceTransferConfig c = DeviceTransferConfig.defaults().chunkSize(16 << 20).stagingBuffers(4);
        assertThat(c.messageChunkFor(1 << 20)).isEqualTo(256 << 10);
        assertThat(c.messageChunkFor(4 << 20)).isEqualTo(512 << 10);
        assertThat(c.messageChunkFor(256L << 20)).isEqualTo(1 << 20);
        assertThat(DeviceTransferConfig.defaults().messageChunkFor(256L << 20)).isEqualTo(1 << 20);
    }

    @Test
    void refusesWhatCannotWork() {
        DeviceTransferConfig d = DeviceTransferConfig.defaults();
        assertThatThrownBy(() -> d.chunkSize(3000)).isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> d.chunkSize(32 << 20)).as("above 16 MiB").isInstanceOf(
                InvalidRequestException.class);
        assertThatThrownBy(() -> d.chunkSize(3 << 20)).isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> d.chunkSize(2048)).isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> d.stagingBuffers(1)).as("no overlap with one").isInstanceOf(
                InvalidRequestException.class);
        assertThatThrownBy(() -> d.paths(null)).isInstanceOf(InvalidRequestException.class);
    }
}
