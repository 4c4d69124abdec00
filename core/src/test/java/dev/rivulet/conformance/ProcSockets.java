package dev.rivulet.conformance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The TCP connections a process holds descriptors of, read from Linux's {@code /proc}: its descriptor table
 * ({@code /proc/PID/fd}, {@code socket:[inode]}) joined with the TCP tables of its network namespace
 * ({@code /proc/PID/net/tcp}, {@code tcp6}) by inode. A test that asks whether a connection's descriptor is gone
 * asks the kernel, not the transport.
 */
public final class ProcSockets {

    /** One TCP socket: its inode, its own port and the peer's (0 for a listener). */
    public record Tcp(long inode, int localPort, int remotePort) {
    }

    private ProcSockets() {
    }

    /** Whether {@code /proc} can tell (Linux). */
    public static boolean available() {
        return Files.isDirectory(Path.of("/proc/self/fd")) && Files.isReadable(Path.of("/proc/self/net/tcp"));
    }

    /** How many descriptors {@code pid} holds. */
    public static int descriptors(long pid) throws IOException {
        try (Stream<Path> fds = Files.list(fdFolder(pid))) {
            return (int) fds.count();
        }
    }

    /** The TCP sockets {@code pid} holds a descriptor of. */
    public static List<Tcp> tcp(long pid) throws IOException {
        Set<Long> held = socketInodes(pid);
        Map<Long, Tcp> table = new HashMap<>();
        for (String name : new String[]{"tcp", "tcp6"}) {
            Path p = Path.of("/proc", Long.toString(pid), "net", name);
            if (!Files.isReadable(p)) {
                continue;
            }
            List<String> lines = Files.readAllLines(p);
            for (String line : lines.subList(1, lines.size())) {
                // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
                String[] f = line.trim().split("\\s+");
                long inode = Long.parseLong(f[9]);
                if (inode != 0 && held.contains(inode)) {
                    table.put(inode, new Tcp(inode, port(f[1]), port(f[2])));
                }
            }
        }
        return List.copyOf(table.values());
    }

    /** The local ports of every TCP socket {@code pid} holds (listeners too). */
    public static Set<Integer> localPorts(long pid) throws IOException {
        Set<Integer> ports = new HashSet<>();
        for (Tcp t : tcp(pid)) {
            ports.add(t.localPort());
        }
        return ports;
    }

    /** The inodes of {@code pid}'s TCP sockets whose peer has one of {@code ports}. */
    public static Set<Long> connectedTo(long pid, Set<Integer> ports) throws IOException {
        Set<Long> inodes = new HashSet<>();
        for (Tcp t : tcp(pid)) {
            if (t.remotePort() != 0 && ports.contains(t.remotePort())) {
                inodes.add(t.inode());
            }
        }
        return inodes;
    }

    /** The inodes of every socket {@code pid} holds a descriptor of. */
    public static Set<Long> socketInodes(long pid) throws IOException {
        Set<Long> inodes = new HashSet<>();
        try (Stream<Path> fds = Files.list(fdFolder(pid))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                String target;
                try {
                    target = Files.readSymbolicLink(fd).toString();
                } catch (NoSuchFileException closedMeanwhile) {
                    continue;
                }
                if (target.startsWith("socket:[")) {
                    inodes.add(Long.parseLong(target.substring(8, target.length() - 1)));
                }
            }
        }
        return inodes;
    }

    private static Path fdFolder(long pid) {
        return Path.of("/proc", Long.toString(pid), "fd");
    }

    /** {@code 0100007F:1F90} (address:port in hex) to its port. */
    private static int port(String addressAndPort) {
        return Integer.parseInt(addressAndPort.substring(addressAndPort.indexOf(':') + 1), 16);
    }
}
