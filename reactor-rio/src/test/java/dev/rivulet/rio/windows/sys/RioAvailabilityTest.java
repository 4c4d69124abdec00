package dev.rivulet.rio.windows.sys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.rivulet.core.spi.Availability;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** Off Windows the binding reports itself unavailable, with the reason, and refuses to load anything. */
class RioAvailabilityTest {

    private static boolean onWindows() {
        return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
    }

    @Test
    void reportsRequiresWindowsElsewhere() {
        assumeFalse(onWindows(), "running on Windows");

        Availability a = Ws2_32.availability();

        assertThat(a.available()).isFalse();
        assertThat(a.reason()).contains("requires Windows").contains(System.getProperty("os.name"));
    }

    @Test
    void openRefusesToLoadAnythingElsewhere() {
        assumeFalse(onWindows(), "running on Windows");

        assertThatThrownBy(Ws2_32::open)
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("requires Windows");
    }

    @Test
    void platformCheckAcceptsOnly64BitWindows() {
        assertThat(Ws2_32.platform("Windows Server 2022", "amd64").available()).isTrue();
        assertThat(Ws2_32.platform("Windows 11", "aarch64").available()).isTrue();
        assertThat(Ws2_32.platform("Windows 10", "x86").reason()).contains("64-bit");
        assertThat(Ws2_32.platform("Linux", "amd64").reason()).contains("requires Windows");
    }
}
