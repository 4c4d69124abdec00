package dev.rivulet.rio.shm;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.TransportOption;
import dev.rivulet.core.error.TransportUnavailableException;
import dev.rivulet.core.spi.Availability;
import dev.rivulet.core.spi.TransportProvider;
import dev.rivulet.rio.ShmOptions;
import dev.rivulet.rio.shm.sys.Futex;

import java.nio.file.Files;
import java.util.List;
import java.util.Locale;

/**
 * Provides the shared-memory transport ({@code shm://NAME}) on Linux with {@code /dev/shm} and {@code futex_waitv}
 * (5.16 or later). Its priority is low: it reaches only processes of this host, so it is never the "best" transport
 * for an address that does not name it.
 */
public final class ShmTransportProvider implements TransportProvider {

    @Override
    public String name() {
        return ShmTransport.NAME;
    }

    @Override
    public String scheme() {
        return ShmAddress.SCHEME;
    }

    @Override
    public int priority() {
        return 5;
    }

    @Override
    public Availability availability() {
        return Probe.RESULT;
    }

    /** Probed once per JVM: none of it changes while the process runs. */
    private static final class Probe {
        static final Availability RESULT = probe();
    }

    private static Availability probe() {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            return Availability.no("shared memory between processes is implemented for Linux only");
        }
        if (!Files.isDirectory(ShmFiles.DIRECTORY) || !Files.isWritable(ShmFiles.DIRECTORY)) {
            return Availability.no(ShmFiles.DIRECTORY + " is missing or not writable");
        }
        try {
            String why = Futex.unavailableReason();
            return why == null ? Availability.yes() : Availability.no(why);
        } catch (RuntimeException | LinkageError e) {
            return Availability.no("cannot make system calls through java.lang.foreign: " + e);
        }
    }

    @Override
    public Transport open(TransportConfig config) {
        Availability a = availability();
        if (!a.available()) {
            throw new TransportUnavailableException("shm is unavailable: " + a.reason());
        }
        return new ShmTransport(config);
    }

    @Override
    public List<TransportOption<?>> options() {
        return ShmOptions.ALL;
    }
}
