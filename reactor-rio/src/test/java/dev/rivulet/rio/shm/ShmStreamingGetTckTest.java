package dev.rivulet.rio.shm;

import dev.rivulet.conformance.StreamingGetSubscriberTck;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import org.testng.annotations.AfterClass;

import static org.assertj.core.api.Assertions.assertThat;

/** The Reactive Streams TCK rules of {@link StreamingGetSubscriberTck} over shm in one JVM. */
public class ShmStreamingGetTckTest extends StreamingGetSubscriberTck {

    @Override
    protected Transport openTransport(TransportConfig config) {
        return ShmTests.open(config);
    }

    @Override
    protected String bindAddress(String name) {
        return ShmTests.address(name);
    }

    @AfterClass(alwaysRun = true)
    public void nothingLeftInDevShm() {
        assertThat(ShmTests.filesOf(ProcessHandle.current().pid())).isEmpty();
    }
}
