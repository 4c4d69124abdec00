package dev.rivulet.rio.shm;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The meters only shm:// has: published with the standard tags, and listed in docs/metrics.md. */
class ShmMetersTest {

    /** A row of the "Meters of one transport" table: {@code | shm:// | `rivulet.shm...` |}. */
    private static final Pattern ROW = Pattern.compile("^\\| shm:// \\| `(rivulet\\.[a-z.]+)`", Pattern.MULTILINE);

    @BeforeAll
    static void requireShm() {
        ShmTests.requireShm();
    }

    @Test
    void theLingeringConnectionsArePublishedWithTheStandardTags() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Transport t = ShmTests.open(TransportConfig.defaults().name("shm-meters").meterRegistry(registry));
        try {
            Gauge g = registry.find("rivulet.shm.connections.lingering").tags("transport", "shm", "name", "shm-meters")
                    .gauge();
            assertThat(g).isNotNull();
            assertThat(g.value()).isZero();
        } finally {
            t.dispose();
        }
        assertThat(registry.find("rivulet.shm.connections.lingering").meters()).isEmpty();
    }

    @Test
    void theMetricsPageListsExactlyTheMetersOnlyShmPublishes() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Transport t = ShmTests.open(TransportConfig.defaults().meterRegistry(registry));
        Set<String> published = new TreeSet<>();
        try {
            for (Meter m : registry.getMeters()) {
                if (m.getId().getName().startsWith("rivulet.shm.")) {
                    published.add(m.getId().getName());
                }
            }
        } finally {
            t.dispose();
        }
        Set<String> documented = new TreeSet<>();
        Matcher m = ROW.matcher(Files.readString(Path.of("..", "docs", "metrics.md")));
        while (m.find()) {
            documented.add(m.group(1));
        }
        assertThat(documented).as("shm:// meters in docs/metrics.md").isEqualTo(published).isNotEmpty();
    }
}
