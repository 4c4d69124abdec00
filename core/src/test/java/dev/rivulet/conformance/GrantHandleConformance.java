package dev.rivulet.conformance;

import dev.rivulet.core.Operation;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.NativeRegistration;
import dev.rivulet.core.memory.RemoteMemory;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a grant's handle names: on transports whose own code checks and executes remote accesses, a window-relative
 * address that says nothing about where the owner's memory lies, narrowed by slices exactly as before; on every
 * transport, an address aligned as the memory it names, so an atomic's alignment is decided alike at both ends.
 */
public abstract class GrantHandleConformance extends ClaimedSendConformance {

    @Test
    void aHandleTellsItsGranteeNothingOfWhereTheOwnersMemoryLies() {
        // Where the target checks the connection, Rivulet's own code serves the access and names offsets; providers
        // and NICs (libfabric, verbs) name what their contract says, virtual addresses included.
        Assumptions.assumeTrue(caps().grantScopeChecked(), () -> caps().transport()
                + " names memory as its provider does (see NativeRegistration)");
        try (Arena arena = Arena.ofShared()) {
            MemoryRegion target = server().memory().register(arena.allocate(4096, 64), GRANTABLE);
            target.segment().fill((byte) 1);
            long windowAt = target.address() + 1000;
            Grant grant = server().grant(target.slice(1000, 200), Access.REMOTE_READ, Access.REMOTE_WRITE);
            RemoteMemory window = exposeOnServer(grant);

            assertThat(window.address()).as("a number below the alignment it keeps, not an address")
                    .isBetween(0L, (long) NativeRegistration.SOFTWARE_ADDRESS_ALIGNMENT - 1)
                    .isEqualTo(windowAt % NativeRegistration.SOFTWARE_ADDRESS_ALIGNMENT);
            assertNoPageOf(target.address(), grant.remote().toBytes());
            assertNoPageOf(windowAt, grant.remote().toBytes());

            // slices narrow it as before: byte i of the window is byte 1000 + i of the region
            MemoryRegion local = client().memory().register(arena.allocate(64, 8));
            local.segment().fill((byte) 7);
            StepVerifier.create(client().put(local.slice(0, 50), window.slice(100, 50)).then(client().flush()))
                    .verifyComplete();
            assertThat(target.segment().get(ValueLayout.JAVA_BYTE, 1099)).isEqualTo((byte) 1);
            assertThat(target.segment().get(ValueLayout.JAVA_BYTE, 1100)).isEqualTo((byte) 7);
            assertThat(target.segment().get(ValueLayout.JAVA_BYTE, 1149)).isEqualTo((byte) 7);
            assertThat(target.segment().get(ValueLayout.JAVA_BYTE, 1150)).isEqualTo((byte) 1);
            target.segment().set(ValueLayout.JAVA_BYTE, 1199, (byte) 42);
            StepVerifier.create(client().get(window.slice(199, 1), local.slice(0, 1))).verifyComplete();
            assertThat(local.segment().get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 42);
            assertThatThrownBy(() -> window.slice(150, 51)).isInstanceOf(InvalidRequestException.class);
            local.close();
            target.close();
        }
    }

    @Test
    void atomicsOnAWindowThatStartsMidWordKeepTheMemorysAlignment() {
        Assumptions.assumeTrue(caps().supports(Operation.ATOMIC_FETCH_ADD_64), "no 64-bit fetch-add");
        try (Arena arena = Arena.ofShared()) {
            MemoryRegion target = server().memory().register(arena.allocate(64, 64), GRANTABLE);
            target.segment().fill((byte) 0);
            // The window starts at byte 4: its first word is misaligned, its second (bytes 8-15) is not.
            RemoteMemory window;
            try {
                window = exposeOnServer(server().grant(target.slice(4, 40), Access.REMOTE_READ,
                        Access.REMOTE_WRITE, Access.REMOTE_ATOMIC));
            } catch (InvalidRequestException refused) {
                // Providers that name offsets from the registration's first byte (libfabric without
                // FI_MR_VIRT_ADDR) would number this window from 0, hiding its alignment from the initiator: such a
                // grant is refused instead.
                assertThat(refused).hasMessageContaining("8-byte boundary");
                target.close();
                return;
            }
            assertThat(window.address() & 7).as("the handle numbers the first byte as aligned as the memory")
                    .isEqualTo(4);
            StepVerifier.create(client().fetchAdd(window.slice(4, 8), 5)).expectNext(0L).verifyComplete();
            assertThat(target.segment().get(ValueLayout.JAVA_LONG, 8)).isEqualTo(5L);
            if (caps().supports(Operation.ATOMIC_FETCH_ADD_32)) {
                StepVerifier.create(client().fetchAdd32(window.slice(0, 4), 3)).expectNext(0L).verifyComplete();
                assertThat(target.segment().get(ValueLayout.JAVA_INT, 4)).isEqualTo(3);
            }
            assertThat(target.segment().get(ValueLayout.JAVA_INT, 0)).as("before the window").isZero();
            StepVerifier.create(client().fetchAdd(window.slice(0, 8), 1))
                    .as("bytes 4-11 are no aligned word, whatever the handle's numbering")
                    .expectError(InvalidRequestException.class).verify(TIMEOUT);
            assertThat(target.segment().get(ValueLayout.JAVA_LONG, 8)).as("nothing moved").isEqualTo(5L);
            target.close();
        }
    }

    /** No 8 bytes of {@code handle}, read either way round, name the page of {@code address}. */
    private static void assertNoPageOf(long address, byte[] handle) {
        MemorySegment h = MemorySegment.ofArray(handle);
        long page = address >>> 12;
        for (int i = 0; i + 8 <= handle.length; i++) {
            long big = ByteBuffer.wrap(handle, i, 8).order(ByteOrder.BIG_ENDIAN).getLong();
            long little = h.get(ValueLayout.JAVA_LONG_UNALIGNED, i);
            assertThat(big >>> 12).as("big-endian bytes at %d", i).isNotEqualTo(page);
            assertThat(little >>> 12).as("little-endian bytes at %d", i).isNotEqualTo(page);
        }
    }
}
