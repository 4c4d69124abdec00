package dev.rivulet.core.memory;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link NativeRegistration#checkedInSoftware}: a grant's handle names its window's first byte by its place in a
 * 64-byte line, so for every window the handle is a small number aligned as the memory, and the target's
 * {@link Grant#offsetOf}, {@link Grant#covers} and the domain's gate read it back exactly.
 */
class SoftwareCheckedAddressTest {

    private final MemoryDomain domain = new MemoryDomain("software",
            (segment, access, key) -> NativeRegistration.checkedInSoftware(segment, key, null, null));
    private final Arena arena = Arena.ofShared();

    @AfterEach
    void close() {
        domain.close();
        arena.close();
    }

    @Test
    void everyWindowIsNamedBySmallAddressesAlignedAsItsMemory() {
        MemoryRegion r = domain.register(arena.allocate(512, 4096), Access.REMOTE_READ, Access.REMOTE_WRITE);
        for (long offset = 0; offset < 200; offset++) {
            Grant g = r.grantToAnyPeer(offset, 100, Access.REMOTE_READ);
            RemoteMemory h = g.remote();
            long real = r.address() + offset;
            assertThat(h.address()).as("window at %d", offset).isEqualTo(real & 63).isEqualTo(g.remoteBase());
            for (int width : new int[]{2, 4, 8, 16, 32, 64}) {
                for (long at = 0; at < 100; at += 3) {
                    assertThat((h.address() + at) & (width - 1)).as("alignment of byte %d by %d", at, width)
                            .isEqualTo((real + at) & (width - 1));
                }
            }
            RemoteMemory tail = h.slice(90, 10);
            assertThat(g.offsetOf(tail.address())).isEqualTo(90);
            assertThat(g.covers(tail.address(), 10)).isTrue();
            assertThat(g.covers(tail.address(), 11)).isFalse();
            assertThat(g.covers(h.address() - 1, 1)).isFalse();
            assertThat(g.covers(Long.MIN_VALUE + h.address(), 8)).isFalse();
            Grant pinned = domain.tryResolveRemote(h.key(), tail.address(), 10, Access.REMOTE_READ, null);
            assertThat(pinned).isSameAs(g);
            pinned.unpin();
            assertThat(domain.tryResolveRemote(h.key(), real, 1, Access.REMOTE_READ, null))
                    .as("the owner's own address is no way in").isNull();
            g.close();
        }
    }
}
