package dev.rivulet.docs;

import dev.rivulet.core.Capabilities;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.error.TransportUnavailableException;
import dev.rivulet.rdma.FabricOptions;
import dev.rivulet.rdma.verbs.VerbsTransport;
import dev.rivulet.rdma.verbs.sys.VerbsConstants;
import dev.rivulet.rio.RioOptions;
import dev.rivulet.rio.stream.StreamTransportSettings;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The completion table of {@code docs/transports.md} is the one place the docs state what a completed send, put and
 * flush mean; this holds each of its rows to the {@link Capabilities} of that transport: opened where it can run,
 * else as its code declares them (Registered I/O runs only on Windows, ibverbs only with an RDMA device).
 */
class CompletionTableTest {

    private static final Path PAGE = Path.of("transports.md");
    private static final String SECTION = "## Completion";

    /** The transport of each row, by its first cell; a row missing here, or a transport missing there, fails. */
    private static final Map<String, Supplier<Optional<Capabilities>>> TRANSPORTS = new LinkedHashMap<>();

    static {
        TRANSPORTS.put("`local`", () -> opened("local", TransportConfig.defaults()));
        TRANSPORTS.put("io_uring", () -> opened("io_uring", TransportConfig.defaults()));
        TRANSPORTS.put("Registered I/O", CompletionTableTest::registeredIo);
        TRANSPORTS.put("`shm://`", () -> opened("shm", TransportConfig.defaults()));
        TRANSPORTS.put("libfabric `tcp`", () -> fabric("tcp"));
        TRANSPORTS.put("libfabric `shm`", () -> fabric("shm"));
        TRANSPORTS.put("libfabric `verbs`", () -> fabric("verbs"));
        TRANSPORTS.put("ibverbs", CompletionTableTest::verbs);
    }

    @Test
    void everyTransportHasOneRow() throws IOException {
        assertThat(rows().keySet()).containsExactlyElementsOf(TRANSPORTS.keySet());
    }

    @TestFactory
    Stream<DynamicTest> eachRowSaysWhatTheTransportDeclares() throws IOException {
        return rows().entrySet().stream().map(row -> DynamicTest.dynamicTest(row.getKey(), () -> {
            Supplier<Optional<Capabilities>> transport = TRANSPORTS.get(row.getKey());
            assertThat(transport).as("a transport for row " + row.getKey()).isNotNull();
            Optional<Capabilities> caps = transport.get();
            assumeTrue(caps.isPresent(), row.getKey() + " cannot be opened here");
            Capabilities c = caps.get();
            assertThat(row.getValue()).as(row.getKey() + ": send / put / flush completion").containsExactly(
                    "`" + c.sendCompletion() + "`", "`" + c.putCompletion() + "`", "`" + c.flushCompletion() + "`");
        }));
    }

    /** The first four cells of each row of the table under {@link #SECTION}, by its first cell. */
    private static Map<String, List<String>> rows() throws IOException {
        String page = Files.readString(PAGE);
        int start = page.indexOf("\n" + SECTION + "\n");
        assertThat(start).as(SECTION + " in " + PAGE).isNotNegative();
        Map<String, List<String>> rows = new LinkedHashMap<>();
        boolean inTable = false;
        for (String line : page.substring(start + SECTION.length() + 2).lines().toList()) {
            if (line.startsWith("## ")) {
                break;
            }
            if (!line.startsWith("|")) {
                if (inTable) {
                    break;
                }
                continue;
            }
            List<String> cells = Stream.of(line.substring(1, line.lastIndexOf('|')).split("\\|"))
                    .map(String::strip).toList();
            if (inTable && !cells.getFirst().startsWith("---")) {
                rows.put(cells.getFirst(), cells.subList(1, 4));
            }
            inTable = true; // the first line is the header
        }
        return rows;
    }

    private static Optional<Capabilities> opened(String name, TransportConfig config) {
        Transport transport;
        try {
            transport = Transports.open(name, config);
        } catch (TransportUnavailableException e) {
            return Optional.empty();
        }
        try {
            return Optional.of(transport.capabilities());
        } finally {
            transport.dispose();
        }
    }

    /**
     * A libfabric provider's transport where the provider is there; {@code FabricTransport} declares the same
     * completions for every provider, so a provider that cannot open here is held to what {@code tcp} declares.
     */
    private static Optional<Capabilities> fabric(String provider) {
        Optional<Capabilities> caps = opened("libfabric", TransportConfig.defaults().option(FabricOptions.PROVIDER,
                provider));
        return caps.isPresent() || provider.equals("tcp") ? caps : fabric("tcp");
    }

    /** As {@code RioTransport} declares them: the stream transports' software RMA, answered by the target. */
    private static Optional<Capabilities> registeredIo() {
        TransportConfig config = TransportConfig.defaults();
        return Optional.of(StreamTransportSettings.from(config, RioOptions.STREAM)
                .capabilities("rio", config, 5e9, Duration.ofNanos(15_000)));
    }

    /** The device's where one opens, else as {@code VerbsTransport} declares them for a device with atomics. */
    private static Optional<Capabilities> verbs() {
        Optional<Capabilities> device = opened("verbs", TransportConfig.defaults());
        return device.isPresent() ? device : Optional.of(VerbsTransport.capabilities("mlx5_0", 16,
                VerbsConstants.IBV_ATOMIC_HCA, 1L << 31, TransportConfig.defaults(), 65536, 128));
    }
}
