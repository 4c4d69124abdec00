package dev.rivulet.gpu.ipc;

import dev.rivulet.gpu.DeviceBuffer;
import org.jspecify.annotations.Nullable;

import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The buffers this process has granted, by grant token: a process cannot open its own IPC handles (CUDA refuses),
 * so when a window comes back to the process that made it (over {@code local}, or a loop back through a transport),
 * the importer finds the buffer here and copies to and from it as it is. An entry lives from the grant to its
 * revocation.
 */
final class IpcExports {

    /** A granted buffer and the handle its windows carry. */
    record Exported(DeviceBuffer buffer, byte[] handle) {
    }

    private static final Map<String, Exported> BY_TOKEN = new ConcurrentHashMap<>();

    private IpcExports() {
    }

    static void add(byte[] token, DeviceBuffer buffer, byte[] handle) {
        BY_TOKEN.put(key(token), new Exported(buffer, handle.clone()));
    }

    static void remove(byte[] token) {
        BY_TOKEN.remove(key(token));
    }

    static @Nullable Exported find(byte[] token) {
        return BY_TOKEN.get(key(token));
    }

    static String key(byte[] token) {
        return HexFormat.of().formatHex(token);
    }
}
