package dev.rivulet.rio.shm;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The transport's files under {@code /dev/shm}: created with owner-only permissions (0600) under names nobody can
 * predict, opened only when they are what they claim to be, unlinked as soon as every process that needs them has
 * them open, and swept when their creator died before it could unlink them.
 *
 * <p>Names are {@code <pid>:rivulet-<32 hex digits>}: the creator's pid (so a survivor can tell whose files are left
 * over) and 128 bits from a {@link SecureRandom}, so no other user can predict a name and plant a file or a link
 * there first (creation uses {@code O_CREAT|O_EXCL} and does not follow links in any case). Names are not secrets:
 * {@code /dev/shm} is listable, and the protection of a file is its mode and owner.
 */
final class ShmFiles {

    private static final Logger log = LoggerFactory.getLogger(ShmFiles.class);

    static final Path DIRECTORY = Path.of("/dev/shm");
    static final long PID = ProcessHandle.current().pid();
    private static final String MARK = ":rivulet-";
    private static final Pattern NAME = Pattern.compile("([0-9]{1,10}):rivulet-[0-9a-f]{32}");
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    private static volatile Integer uid;

    private ShmFiles() {
    }

    /** A fresh, unpredictable name of this process. */
    static String newName() {
        byte[] r = new byte[16];
        RANDOM.nextBytes(r);
        return PID + MARK + HexFormat.of().formatHex(r);
    }

    /** Whether {@code name} is a name this transport makes (nothing else is ever opened). */
    static boolean isName(String name) {
        return name != null && NAME.matcher(name).matches();
    }

    /** The name's creator. */
    static long creatorOf(String name) {
        Matcher m = NAME.matcher(name);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a shared-memory file name: " + name);
        }
        return Long.parseLong(m.group(1));
    }

    /** Creates {@code name} (0600, exclusively, not following links), read-write. */
    static FileChannel create(String name) throws IOException {
        return FileChannel.open(DIRECTORY.resolve(name), Set.<OpenOption>of(StandardOpenOption.CREATE_NEW,
                StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
                PosixFilePermissions.asFileAttribute(OWNER_ONLY));
    }

    /**
     * Opens a peer's file read-write after checking that it is one of ours: a regular file (not a link) owned by
     * this user, mode 0600, exactly {@code size} bytes.
     */
    static FileChannel openPeers(String name, long size) throws IOException {
        if (!isName(name)) {
            throw new IOException("not a shared-memory file name: " + name);
        }
        Path p = DIRECTORY.resolve(name);
        FileChannel ch = FileChannel.open(p, Set.<OpenOption>of(StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS));
        try {
            if (!Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)
                    || ((Number) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS)).intValue() != uid()
                    || !Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS).equals(OWNER_ONLY)
                    || ch.size() != size) {
                throw new IOException(p + " is not a shared-memory file of this user with mode 0600 and " + size
                        + " bytes");
            }
            return ch;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** Removes {@code name}; quietly, as every caller has already decided the file must go. */
    static void unlink(String name) {
        try {
            Files.deleteIfExists(DIRECTORY.resolve(name));
        } catch (IOException e) {
            log.warn("could not remove {}: {}", DIRECTORY.resolve(name), e.toString());
        }
    }

    /** This process's user id. */
    static int uid() {
        Integer u = uid;
        if (u == null) {
            try {
                u = ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).intValue();
            } catch (IOException e) {
                throw new IllegalStateException("cannot read this process's user id from /proc/self", e);
            }
            uid = u;
        }
        return u;
    }

    /**
     * Removes this user's files whose creator is no longer running: what a process killed between creating a file
     * and unlinking it left behind. Returns how many went. With {@code onlyPid} &gt; 0, looks at that process's
     * files only.
     */
    static int sweep(long onlyPid) {
        int removed = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(DIRECTORY, "*" + MARK + "*")) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                Matcher m = NAME.matcher(name);
                if (!m.matches()) {
                    continue;
                }
                long pid = Long.parseLong(m.group(1));
                if ((onlyPid > 0 && pid != onlyPid) || pid == PID || ProcessHandle.of(pid).isPresent()) {
                    continue;
                }
                try {
                    if (((Number) Files.getAttribute(f, "unix:uid", LinkOption.NOFOLLOW_LINKS)).intValue() == uid()
                            && Files.deleteIfExists(f)) {
                        removed++;
                    }
                } catch (NoSuchFileException gone) {
                    // another survivor was faster
                }
            }
        } catch (NoSuchFileException noShm) {
            return 0;
        } catch (IOException | RuntimeException e) {
            log.debug("sweeping {} failed: {}", DIRECTORY, e.toString());
        }
        if (removed > 0) {
            log.info("removed {} shared-memory file(s) left in {} by ended processes", removed, DIRECTORY);
        }
        return removed;
    }
}
