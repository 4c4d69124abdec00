package dev.rivulet.gpu;

import dev.rivulet.core.error.TransportUnavailableException;
import dev.rivulet.core.spi.Availability;
import dev.rivulet.gpu.cuda.CudaMemory;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Whatever the machine, asking about CUDA never throws, and without it the reason says what is missing. */
class CudaAvailabilityTest {

    @Test
    void availabilityAlwaysAnswersWithAReason() {
        Availability a = CudaMemory.availability();
        assertThat(a.reason()).isNotBlank();
        if (!a.available()) {
            assertThat(a.reason()).containsAnyOf("no CUDA driver", "no CUDA device", "JCuda native library",
                    "cudaGetDeviceCount failed", "could not be initialised");
        }
        assertThat(CudaMemory.availability()).as("found once").isSameAs(a);
    }

    @Test
    void openingWithoutCudaIsRefusedWithThatReason() {
        Availability a = CudaMemory.availability();
        if (a.available()) {
            try (CudaMemory m = CudaMemory.open(0)) {
                assertThat(m.kind()).isEqualTo("cuda");
            }
            return;
        }
        assertThatThrownBy(() -> CudaMemory.open(0)).isInstanceOf(TransportUnavailableException.class)
                .hasMessageContaining(a.reason());
    }
}
