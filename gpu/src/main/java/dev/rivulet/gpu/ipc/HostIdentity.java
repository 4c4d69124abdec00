package dev.rivulet.gpu.ipc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/**
 * Which host (and which boot of it) this process runs on: an IPC handle opens only there. Linux's boot id, which
 * every process of one boot reads the same; where it cannot be read, a random identity of this process, so windows
 * open only within it.
 */
final class HostIdentity {

    private static final String ID = read();

    private HostIdentity() {
    }

    static String current() {
        return ID;
    }

    private static String read() {
        try {
            return "boot:" + Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).trim();
        } catch (IOException | SecurityException e) {
            return "process:" + UUID.randomUUID();
        }
    }
}
