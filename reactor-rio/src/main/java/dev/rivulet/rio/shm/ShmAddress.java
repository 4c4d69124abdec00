package dev.rivulet.rio.shm;

import dev.rivulet.core.error.InvalidRequestException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@code shm://NAME} and where its listener's socket lives: {@code <directory>/NAME.sock}, the directory being
 * {@code shm.directory}, else {@code $XDG_RUNTIME_DIR/rivulet}, else {@code /tmp/rivulet-<uid>}. The directory is
 * created with mode 0700 and used only while it is a real directory (not a link) owned by this user with exactly
 * that mode: only this user (and root) can then reach a listener, and nobody else can plant a socket where a client
 * would dial it.
 */
final class ShmAddress {

    static final String SCHEME = "shm";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,95}");
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");
    /** {@code sizeof(sockaddr_un.sun_path)} less its terminating NUL. */
    private static final int MAX_SOCKET_PATH = 107;

    private ShmAddress() {
    }

    /** The NAME of {@code shm://NAME}, checked. */
    static String nameOf(String address) {
        String prefix = SCHEME + "://";
        if (address == null || !address.startsWith(prefix)) {
            throw new InvalidRequestException("not a shared-memory address: '" + address + "' (expected "
                    + prefix + "NAME)");
        }
        String name = address.substring(prefix.length());
        if (!NAME.matcher(name).matches()) {
            throw new InvalidRequestException("shared-memory name '" + name + "' must be 1 to 96 letters, digits, "
                    + "'.', '_' or '-', starting with a letter or digit");
        }
        return name;
    }

    static String format(String name) {
        return SCHEME + "://" + name;
    }

    /** The socket of listener {@code name} in {@code directory}. */
    static Path socketPath(Path directory, String name) {
        Path p = directory.resolve(name + ".sock");
        if (p.toString().length() > MAX_SOCKET_PATH) {
            throw new InvalidRequestException("socket path " + p + " is longer than a Unix socket address allows ("
                    + MAX_SOCKET_PATH + " bytes); choose a shorter name or shm.directory");
        }
        return p;
    }

    /** The socket directory, created (0700) when missing, refused when it is not this user's alone. */
    static Path directory(String configured) {
        Path dir;
        if (configured != null) {
            dir = Path.of(configured);
        } else {
            String xdg = System.getenv("XDG_RUNTIME_DIR");
            dir = xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute() && Files.isDirectory(Path.of(xdg))
                    ? Path.of(xdg, "rivulet") : Path.of("/tmp", "rivulet-" + ShmFiles.uid());
        }
        try {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                try {
                    Files.createDirectories(dir.getParent());
                    Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
                } catch (java.nio.file.FileAlreadyExistsException raced) {
                    // another transport made it first: checked below like any other
                }
            }
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)
                    || ((Number) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS)).intValue()
                    != ShmFiles.uid()
                    || !Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS).equals(OWNER_ONLY)) {
                throw new InvalidRequestException("socket directory " + dir + " must be a directory owned by this "
                        + "user with mode 0700 (rwx------)");
            }
        } catch (IOException e) {
            throw new InvalidRequestException("cannot use socket directory " + dir + ": " + e, e);
        }
        return dir;
    }
}
