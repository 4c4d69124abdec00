package dev.rivulet.core.memory;

import dev.rivulet.core.error.InvalidMemoryException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.RemoteAccessException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MemoryDomainTest {

    private final AtomicInteger released = new AtomicInteger();
    private final MemoryDomain domain = new MemoryDomain("test", (seg, access, key) ->
            new NativeRegistration(key, seg.address(), MemorySegment.NULL, new byte[]{1, 2}, released::incrementAndGet));
    private final Arena arena = Arena.ofShared();

    @AfterEach
    void close() {
        domain.close();
        arena.close();
    }

    @Test
    void remoteMemorySerialisesAndRefusesGarbage() {
        MemoryRegion r = domain.register(arena.allocate(128));
        RemoteMemory rm = r.remote(16, 32);
        assertThat(RemoteMemory.fromBytes(rm.toBytes())).isEqualTo(rm);
        assertThat(rm.address()).isEqualTo(r.address() + 16);
        assertThat(rm.providerBytes()).containsExactly(1, 2);
        byte[] bytes = rm.toBytes();
        bytes[0] ^= 1;
        assertThatThrownBy(() -> RemoteMemory.fromBytes(bytes)).isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> RemoteMemory.fromBytes(new byte[3])).isInstanceOf(InvalidRequestException.class);
        byte[] truncated = java.util.Arrays.copyOf(rm.toBytes(), rm.toBytes().length - 1);
        assertThatThrownBy(() -> RemoteMemory.fromBytes(truncated)).isInstanceOf(InvalidRequestException.class);
    }

    @Test
    void resolveRemoteChecksKeyBoundsAndRights() {
        MemoryRegion r = domain.register(arena.allocate(64));
        MemoryRegion ro = domain.register(arena.allocate(64), java.util.Set.of(Access.REMOTE_READ));
        MemoryRegion pinned = domain.resolveRemote(r.key(), r.address() + 8, 56, Access.REMOTE_WRITE);
        assertThat(pinned.pins()).isEqualTo(1);
        pinned.unpin();
        assertThatThrownBy(() -> domain.resolveRemote(r.key() + 1, r.address(), 8, Access.REMOTE_WRITE))
                .isInstanceOf(RemoteAccessException.class).hasMessageContaining("unknown remote key");
        assertThatThrownBy(() -> domain.resolveRemote(r.key(), r.address() + 8, 57, Access.REMOTE_WRITE))
                .isInstanceOf(RemoteAccessException.class).hasMessageContaining("outside");
        assertThatThrownBy(() -> domain.resolveRemote(r.key(), r.address() - 1, 8, Access.REMOTE_READ))
                .isInstanceOf(RemoteAccessException.class);
        assertThatThrownBy(() -> domain.resolveRemote(r.key(), Long.MAX_VALUE, 8, Access.REMOTE_READ))
                .isInstanceOf(RemoteAccessException.class);
        assertThatThrownBy(() -> domain.resolveRemote(ro.key(), ro.address(), 8, Access.REMOTE_WRITE))
                .isInstanceOf(RemoteAccessException.class).hasMessageContaining("does not allow");
        r.close();
        assertThatThrownBy(() -> domain.resolveRemote(r.key(), r.address(), 8, Access.REMOTE_READ))
                .isInstanceOf(RemoteAccessException.class);
    }

    @Test
    void closeIsDeferredWhilePinnedAndHappensOnce() {
        MemoryRegion r = domain.register(arena.allocate(64));
        assertThat(r.tryPin()).isTrue();
        r.close();
        r.close();
        assertThat(r.tryPin()).as("no new pins once closing").isFalse();
        assertThat(released).hasValue(0);
        r.unpin();
        assertThat(released).hasValue(1);
        assertThat(r.onClose().block(Duration.ofSeconds(1))).isNull();
        assertThatThrownBy(() -> domain.lookup(r.segment())).isInstanceOf(InvalidMemoryException.class);
    }

    @Test
    void registrationCacheReusesCoveringRegions() {
        MemorySegment big = arena.allocate(4096);
        RegisteredSlice a = domain.registerCached(big);
        RegisteredSlice b = domain.registerCached(big.asSlice(100, 200));
        assertThat(b.region()).isSameAs(a.region());
        assertThat(b.offset()).isEqualTo(100);
        assertThat(domain.cacheHits()).isEqualTo(1);
        assertThat(domain.cacheMisses()).isEqualTo(1);
        assertThat(domain.lookup(big.asSlice(8, 8)).region()).isSameAs(a.region());
    }

    @Test
    void poolRecyclesBuffersAndCountsOutstanding() {
        List<Buffer> held = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            held.add(domain.allocate(100));
        }
        assertThat(domain.buffers().outstanding()).isEqualTo(100);
        assertThat(held.getFirst().capacity()).isEqualTo(128);
        Buffer first = held.getFirst();
        held.forEach(Buffer::release);
        assertThat(domain.buffers().outstanding()).isZero();
        assertThatThrownBy(first::release).isInstanceOf(IllegalStateException.class);
        Buffer huge = domain.allocate(3 << 20);
        assertThat(huge.capacity()).isEqualTo(3 << 20);
        int regions = domain.regionCount();
        huge.release();
        assertThat(domain.regionCount()).isEqualTo(regions - 1);
    }

    @Test
    void leakDetectorNamesTheAllocation() {
        LeakDetector.enable();
        try {
            LeakDetector.reset();
            Buffer b = domain.allocate(8);
            assertThatThrownBy(() -> LeakDetector.awaitNoLeaks(Duration.ofMillis(50)))
                    .isInstanceOf(AssertionError.class).hasMessageContaining("leaked")
                    .hasMessageContaining("MemoryDomainTest");
            b.release();
            LeakDetector.awaitNoLeaks(Duration.ofMillis(50));
        } finally {
            LeakDetector.disable();
        }
    }
}
