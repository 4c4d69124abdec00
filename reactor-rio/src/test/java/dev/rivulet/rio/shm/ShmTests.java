package dev.rivulet.rio.shm;

import dev.rivulet.conformance.Requirements;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/** What the shared-memory tests share: opening the transport, fresh names, and what is left in /dev/shm. */
final class ShmTests {

    private static final SecureRandom RANDOM = new SecureRandom();

    private ShmTests() {
    }

    static void requireShm() {
        Requirements.assume(new ShmTransportProvider().availability(), "shm");
    }

    static Transport open(TransportConfig config) {
        return new ShmTransportProvider().open(config);
    }

    /** {@code shm://<prefix>-<random>}: unique across test runs and concurrent builds. */
    static String address(String prefix) {
        byte[] r = new byte[6];
        RANDOM.nextBytes(r);
        return "shm://" + prefix + "-" + HexFormat.of().formatHex(r);
    }

    /** This transport's files in /dev/shm created by process {@code pid}. */
    static List<String> filesOf(long pid) {
        try (Stream<Path> files = Files.list(ShmFiles.DIRECTORY)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith(pid + ":rivulet-")).toList();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
