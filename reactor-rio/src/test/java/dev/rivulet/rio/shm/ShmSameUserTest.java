package dev.rivulet.rio.shm;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.memory.RegisteredSlice;
import dev.rivulet.core.memory.RemoteMemory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@code shm://} can and cannot keep from another process of the same user, shown with real processes: an
 * owner that allocated a shared region and granted one peer two read-only pages of it, the peer (this JVM), and a
 * third process of the same user without privileges ({@link ProcReach}) that is nobody's peer.
 *
 * <p>By default the third process finds the region's descriptor under {@code /proc/<owner>/fd} and writes every
 * page of it, granted or not: the kernel lets any process of the same user open a dumpable process's descriptors.
 * With {@code shm.nonDumpable} the owner's descriptors and memory are closed to it, nothing of the region changes,
 * and the granted peer is still served.
 */
@Timeout(120)
class ShmSameUserTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final List<ChildProcess> children = new ArrayList<>();
    private Transport transport;
    private final Arena arena = Arena.ofShared();

    @BeforeAll
    static void requireShm() {
        ShmTests.requireShm();
    }

    @AfterEach
    void close() throws InterruptedException {
        for (ChildProcess c : children) {
            c.close();
        }
        if (transport != null) {
            transport.dispose();
        }
        arena.close();
    }

    /** Starts the owner; connects to it as its peer and returns the handle it granted. */
    private RemoteMemory ownerGrants(ChildProcess owner) throws Exception {
        transport = ShmTests.open(TransportConfig.defaults());
        Endpoint ep = transport.connect(owner.await("OWNER ", TIMEOUT)).block(TIMEOUT);
        RemoteMemory window = ep.receive().asByteArray().next().map(RemoteMemory::fromBytes).block(TIMEOUT);
        RegisteredSlice local = transport.memory().register(arena.allocate(2 * 4096, 4096)).slice();
        ep.get(window, local).block(TIMEOUT);
        assertThat(local.segment().get(ValueLayout.JAVA_BYTE, 0)).as("the peer reads its grant").isEqualTo((byte) 0x11);
        assertThat(window.address()).as("the handle names no address of the owner").isLessThan(64);
        return window;
    }

    private ChildProcess owner(boolean nonDumpable) throws Exception {
        ChildProcess c = ChildProcess.jvm(unprivileged(), ShmPeerProcess.class, "owner",
                "same-user-" + ProcessHandle.current().pid() + "-" + nonDumpable, Boolean.toString(nonDumpable));
        children.add(c);
        return c;
    }

    /** Runs {@link ProcReach} against {@code pid} as an unprivileged process of this user; returns its lines. */
    private List<String> reach(long pid) throws Exception {
        ChildProcess c = ChildProcess.jvm(unprivileged(), ProcReach.class, Long.toString(pid));
        children.add(c);
        List<String> got = new ArrayList<>();
        for (String prefix : new String[]{"FDS", "MEM"}) {
            got.add(prefix + " " + c.await(prefix, TIMEOUT));
        }
        return got;
    }

    /** The first byte of each of the owner's pages, as it reads them itself. */
    private static String pages(ChildProcess owner) throws Exception {
        owner.send("PAGES");
        return owner.await("PAGES", TIMEOUT);
    }

    /**
     * Root holds CAP_SYS_PTRACE, which overrides every check shown here, and a process without capabilities may not
     * read one that has them: as root, run the owner and the third process with no capabilities at all (the same
     * user id, what ordinary processes of one user hold).
     */
    private static List<String> unprivileged() {
        if (ShmFiles.uid() != 0) {
            return List.of();
        }
        Path setpriv = Path.of("/usr/bin/setpriv");
        Assumptions.assumeTrue(Files.isExecutable(setpriv), "running as root needs setpriv to drop capabilities");
        return List.of(setpriv.toString(), "--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all", "--");
    }

    @Test
    void byDefaultAnyProcessOfTheSameUserWritesEveryPageOfASharedRegion() throws Exception {
        ChildProcess owner = owner(false);
        ownerGrants(owner);
        List<String> got = reach(owner.pid());
        assertThat(got.get(0)).as("it finds the region's descriptor").isEqualTo("FDS 1");
        assertThat(pages(owner)).as("every page written, never-granted ones included")
                .isEqualTo(String.join(" ", java.util.Collections.nCopies(ShmPeerProcess.OWNER_PAGES, "ee")));
    }

    @Test
    void aNonDumpableOwnerIsOutOfReachOfTheSameUserAndStillServesItsPeer() throws Exception {
        ChildProcess owner = owner(true);
        RemoteMemory window = ownerGrants(owner);
        assertThat(window.providerBytes()).as("no window of a non-dumpable owner is offered for mapping").isEmpty();
        List<String> got = reach(owner.pid());
        // A non-root user may not even list them; root without capabilities lists them but opens none.
        assertThat(got.get(0)).as("its descriptors").matches("FDS (denied.*|0)");
        assertThat(got.get(1)).as("its memory").startsWith("MEM denied");
        assertThat(pages(owner)).as("not a byte changed")
                .isEqualTo(String.join(" ", java.util.Collections.nCopies(ShmPeerProcess.OWNER_PAGES, "11")));
    }
}
