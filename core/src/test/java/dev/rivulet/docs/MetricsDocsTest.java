package dev.rivulet.docs;

import dev.rivulet.core.ConnectionPool;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.local.LocalTransportProvider;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/metrics.md's tables name every meter a transport and a connection pool publish, and no meter they do not
 * publish.
 */
class MetricsDocsTest {

    private static final Pattern METER = Pattern.compile("^\\| `(rivulet\\.[a-z.]+)`(?:, `(rivulet\\.[a-z.]+)`)?",
            Pattern.MULTILINE);

    @Test
    void theMetricsPageListsExactlyTheMetersATransportPublishes() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Transport t = new LocalTransportProvider().open(TransportConfig.defaults().meterRegistry(registry));
        ConnectionPool pool = RivuletClient.create().remoteAddress("local://metrics-docs")
                .pool(ConnectionPool.Settings.of("docs", 1).meterRegistry(registry));
        Set<String> published = new TreeSet<>();
        try {
            for (Meter m : registry.getMeters()) {
                published.add(m.getId().getName());
            }
        } finally {
            pool.dispose();
            t.dispose();
        }
        Set<String> documented = new TreeSet<>();
        Matcher m = METER.matcher(Files.readString(Path.of("..", "docs", "metrics.md")));
        while (m.find()) {
            documented.add(m.group(1));
            if (m.group(2) != null) {
                documented.add(m.group(2));
            }
        }
        assertThat(documented).as("meters in docs/metrics.md").isEqualTo(published);
    }
}
