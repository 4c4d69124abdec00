package dev.rivulet.core.memory;

import dev.rivulet.core.error.InsufficientResourcesException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.error.InvalidMemoryException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.RemoteAccessException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
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

    private static final AccessScope CONNECTION_A = new AccessScope() { };
    private static final AccessScope CONNECTION_B = new AccessScope() { };

    @Test
    void remoteMemorySerialisesAndRefusesGarbage() {
        MemoryRegion r = domain.register(arena.allocate(128), Access.REMOTE_READ, Access.REMOTE_WRITE);
        RemoteMemory rm = r.grantToAnyPeer(16, 32, Access.REMOTE_READ).remote();
        assertThat(RemoteMemory.fromBytes(rm.toBytes())).isEqualTo(rm);
        assertThat(rm.address()).isEqualTo(r.address() + 16);
        assertThat(rm.length()).isEqualTo(32);
        assertThat(rm.providerBytes()).containsExactly(1, 2);
        byte[] bytes = rm.toBytes();
        bytes[0] ^= 1;
        assertThatThrownBy(() -> RemoteMemory.fromBytes(bytes)).isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> RemoteMemory.fromBytes(new byte[3])).isInstanceOf(InvalidRequestException.class);
        byte[] truncated = java.util.Arrays.copyOf(rm.toBytes(), rm.toBytes().length - 1);
        assertThatThrownBy(() -> RemoteMemory.fromBytes(truncated)).isInstanceOf(InvalidRequestException.class);
    }

    @Test
    void resolveRemoteChecksKeyWindowRightsAndConnectionWithOneAnswer() {
        MemoryRegion r = domain.register(arena.allocate(128), Access.REMOTE_READ, Access.REMOTE_WRITE);
        Grant g = domain.grant(r.slice(32, 64), Set.of(Access.REMOTE_WRITE), CONNECTION_A);
        RemoteMemory rm = g.remote();
        Grant pinned = domain.resolveRemote(rm.key(), rm.address() + 8, 56, Access.REMOTE_WRITE, CONNECTION_A);
        assertThat(pinned).isSameAs(g);
        assertThat(r.pins()).isEqualTo(1);
        assertThat(pinned.offsetOf(rm.address() + 8)).isEqualTo(8);
        pinned.unpin();
        List<Runnable> refused = List.of(
                () -> domain.resolveRemote(rm.key() + 1, rm.address(), 8, Access.REMOTE_WRITE, CONNECTION_A),
                () -> domain.resolveRemote(rm.key(), rm.address() + 8, 57, Access.REMOTE_WRITE, CONNECTION_A),
                () -> domain.resolveRemote(rm.key(), rm.address() - 1, 8, Access.REMOTE_WRITE, CONNECTION_A),
                () -> domain.resolveRemote(rm.key(), rm.address() - 32, 8, Access.REMOTE_WRITE, CONNECTION_A),
                () -> domain.resolveRemote(rm.key(), Long.MAX_VALUE, 8, Access.REMOTE_WRITE, CONNECTION_A),
                () -> domain.resolveRemote(rm.key(), Long.MIN_VALUE, 8, Access.REMOTE_WRITE, CONNECTION_A),
                () -> domain.resolveRemote(rm.key(), rm.address(), -1, Access.REMOTE_WRITE, CONNECTION_A),
                () -> domain.resolveRemote(rm.key(), rm.address(), 8, Access.REMOTE_READ, CONNECTION_A),
                () -> domain.resolveRemote(rm.key(), rm.address(), 8, Access.REMOTE_WRITE, CONNECTION_B));
        for (Runnable call : refused) {
            assertThatThrownBy(call::run).isInstanceOf(RemoteAccessException.class)
                    .hasMessage(MemoryDomain.REFUSED);
        }
        assertThat(r.pins()).as("refusals leave no pin behind").isZero();
        assertThat(domain.tryResolveRemote(rm.key(), rm.address(), 8, Access.REMOTE_READ, CONNECTION_A)).isNull();
    }

    @Test
    void grantsNeedRemoteRightsTheRegionAllows() {
        MemoryRegion ro = domain.register(arena.allocate(64), Set.of(Access.REMOTE_READ));
        assertThatThrownBy(() -> ro.grantToAnyPeer(0, 64, Access.REMOTE_WRITE))
                .isInstanceOf(InvalidMemoryException.class);
        assertThatThrownBy(() -> domain.grant(ro.slice(), Set.of(Access.LOCAL_READ), null))
                .isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> domain.grant(ro.slice(), Set.of(), null)).isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> ro.grantToAnyPeer(0, 64)).isInstanceOf(InvalidRequestException.class);
        Buffer pooled = domain.allocate(64);
        assertThatThrownBy(() -> domain.grant(pooled.region().slice(pooled.regionOffset(), 64),
                Set.of(Access.REMOTE_READ), null)).as("pool memory is local only")
                .isInstanceOf(InvalidMemoryException.class);
        pooled.release();
    }

    @Test
    void revokingAGrantTheRegionOrTheConnectionRefusesAtOnce() {
        MemoryRegion r = domain.register(arena.allocate(64), Access.REMOTE_READ, Access.REMOTE_WRITE);
        Grant a = domain.grant(r.slice(), Set.of(Access.REMOTE_READ), CONNECTION_A);
        Grant b = domain.grant(r.slice(), Set.of(Access.REMOTE_READ), CONNECTION_B);
        Grant any = r.grantToAnyPeer(0, 64, Access.REMOTE_READ);
        assertThat(domain.grantCount()).isEqualTo(3);
        long keyOfA = a.remote().key();
        a.close();
        a.close();
        assertThat(domain.tryResolveRemote(keyOfA, r.address(), 8, Access.REMOTE_READ, CONNECTION_A)).isNull();
        assertThatThrownBy(a::remote).isInstanceOf(dev.rivulet.core.error.ResourceClosedException.class);
        domain.revokeScope(CONNECTION_B);
        assertThat(b.isOpen()).isFalse();
        assertThat(domain.tryResolveRemote(any.remote().key(), r.address(), 8, Access.REMOTE_READ, CONNECTION_B))
                .isSameAs(any);
        any.unpin();
        r.close();
        assertThat(any.isOpen()).isFalse();
        assertThat(domain.grantCount()).isZero();
        assertThatThrownBy(() -> r.grantToAnyPeer(0, 8, Access.REMOTE_READ)).isInstanceOf(InvalidMemoryException.class);
        assertThat(released).as("three grant registrations and the region's").hasValue(4);
    }

    @Test
    void oneKeySaysNothingAboutTheNext() {
        // The predictor that broke the old key source: SplittableRandom's output is an invertible mix of a state
        // that advances by a fixed gamma, so one output gives the next. It must work on SplittableRandom...
        java.util.SplittableRandom weak = new java.util.SplittableRandom(42);
        long w = weak.nextLong();
        for (int i = 0; i < 100; i++) {
            long next = weak.nextLong();
            assertThat(SplitMixPredictor.next(w)).isEqualTo(next);
            w = next;
        }
        // ...and must never work on the domain's keys, nor may keys repeat, be 0 or be biased.
        MemoryRegion r = domain.register(arena.allocate(64), Access.REMOTE_READ, Access.REMOTE_WRITE);
        Set<Long> keys = new HashSet<>();
        long ones = 0;
        long prev = r.grantToAnyPeer(0, 64, Access.REMOTE_READ).remote().key();
        for (int i = 0; i < 2000; i++) {
            long k = r.grantToAnyPeer(0, 64, Access.REMOTE_READ).remote().key();
            assertThat(k).isNotZero().isNotEqualTo(SplitMixPredictor.next(prev));
            assertThat(keys.add(k)).isTrue();
            ones += Long.bitCount(k);
            prev = k;
        }
        assertThat(ones / 2000.0).as("mean set bits of a random 64-bit key").isBetween(30.0, 34.0);
    }

    /** Inverts SplittableRandom's output function (a bijection) and steps its state by the golden gamma. */
    static final class SplitMixPredictor {
        private static final long GOLDEN_GAMMA = 0x9e3779b97f4a7c15L;

        static long next(long output) {
            return mix64(unmix64(output) + GOLDEN_GAMMA);
        }

        static long mix64(long z) {
            z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
            z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
            return z ^ (z >>> 31);
        }

        static long unmix64(long z) {
            z = unshift(z, 31);
            z = unshift(z * inverse(0x94d049bb133111ebL), 27);
            return unshift(z * inverse(0xbf58476d1ce4e5b9L), 30);
        }

        private static long unshift(long z, int s) {
            long x = z;
            for (int i = 0; i < 64 / s + 1; i++) {
                x = z ^ (x >>> s);
            }
            return x;
        }

        /** Multiplicative inverse of an odd number modulo 2^64 (Newton's iteration doubles the correct bits). */
        private static long inverse(long a) {
            long x = a;
            for (int i = 0; i < 6; i++) {
                x *= 2 - a * x;
            }
            return x;
        }
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
        assertThatThrownBy(first::release).isInstanceOf(InvalidMemoryException.class);
        Buffer huge = domain.allocate(3 << 20);
        assertThat(huge.capacity()).isEqualTo(3 << 20);
        int regions = domain.regionCount();
        huge.release();
        assertThat(domain.regionCount()).isEqualTo(regions - 1);
    }

    @Test
    void registrationIsLocalUnlessRemoteRightsAreAskedFor() {
        MemoryRegion plain = domain.register(arena.allocate(64));
        assertThat(plain.access()).isEqualTo(Access.LOCAL);
        assertThatThrownBy(() -> plain.grantToAnyPeer(0, 64, Access.REMOTE_READ))
                .isInstanceOf(InvalidMemoryException.class).hasMessageContaining("registered for");
        MemoryRegion readable = domain.register(arena.allocate(64), Access.REMOTE_READ);
        assertThat(readable.access()).contains(Access.REMOTE_READ).doesNotContain(Access.REMOTE_WRITE);
        assertThat(readable.grantToAnyPeer(0, 64, Access.REMOTE_READ).isOpen()).isTrue();
        assertThatThrownBy(() -> readable.grantToAnyPeer(0, 64, Access.REMOTE_WRITE))
                .isInstanceOf(InvalidMemoryException.class);
        assertThat(domain.registerCached(arena.allocate(64)).region().access()).isEqualTo(Access.LOCAL);
    }

    @Test
    void aReleasedBufferRefusesEveryUseOfItsBytes() {
        Buffer b = domain.allocate(16).write(new byte[16]);
        b.release();
        assertThatThrownBy(b::segment).isInstanceOf(InvalidMemoryException.class).hasMessageContaining("released");
        assertThatThrownBy(b::toArray).isInstanceOf(InvalidMemoryException.class);
        assertThatThrownBy(b::capacitySegment).isInstanceOf(InvalidMemoryException.class);
        assertThatThrownBy(() -> b.write(new byte[1])).isInstanceOf(InvalidMemoryException.class);
        assertThatThrownBy(b::retain).isInstanceOf(InvalidMemoryException.class);
    }

    @Test
    void paranoidDetectionKeepsAStaleReferenceDeadAfterItsMemoryIsHandedOutAgain() {
        LeakDetector.enable(LeakDetector.Level.PARANOID);
        try {
            Buffer stale = domain.allocate(16);
            stale.release();
            List<Buffer> again = new ArrayList<>();
            for (int i = 0; i < 64; i++) { // every free 16-byte slot, the stale one's memory among them
                again.add(domain.allocate(16));
            }
            assertThat(again).noneMatch(b -> b == stale);
            assertThatThrownBy(stale::segment).isInstanceOf(InvalidMemoryException.class);
            again.forEach(Buffer::release);
        } finally {
            LeakDetector.disable();
        }
    }

    @Test
    void aNonBlockingThreadNeverWaitsForMemoryAndFailsTypedAtOnceWhenItCannotBeRegistered() throws Exception {
        AtomicBoolean registrationFails = new AtomicBoolean();
        Set<String> registeringThreads = java.util.concurrent.ConcurrentHashMap.newKeySet();
        MemoryDomain watched = new MemoryDomain("watched", (segment, access, key) -> {
            if (registrationFails.get() || Thread.currentThread().getName().startsWith("boundedElastic")) {
                // The background growth never delivers here (a provider that cannot register more): before, a
                // non-blocking thread waited for it up to ten seconds and then failed.
                throw new InsufficientResourcesException("injected: no more memory can be registered");
            }
            registeringThreads.add(Thread.currentThread().getName());
            return new NativeRegistration(key, segment.address(), null, null, null);
        });
        Scheduler parallel = Schedulers.newParallel("non-blocking-allocator", 1);
        try {
            List<Buffer> got = Mono.fromCallable(() -> {
                List<Buffer> l = new ArrayList<>();
                for (int i = 0; i < 5000; i++) { // several slabs' worth of 256-byte buffers
                    l.add(watched.allocate(256));
                }
                l.add(watched.allocate(3 << 20)); // a huge buffer: registered for itself
                return l;
            }).subscribeOn(parallel).block(Duration.ofSeconds(30));
            assertThat(got).hasSize(5001);
            assertThat(watched.buffers().inlineGrowths()).as("registrations on the allocating thread").isPositive();
            got.forEach(Buffer::release);

            // When registering fails there too, the allocation fails at once, typed and retryable.
            registrationFails.set(true);
            long start = System.nanoTime();
            Throwable failed = Mono.fromCallable(() -> {
                List<Buffer> held = new ArrayList<>();
                try {
                    for (int i = 0; i < 100_000; i++) {
                        held.add(watched.allocate(4096));
                    }
                    return null;
                } catch (InsufficientResourcesException e) {
                    return e;
                } finally {
                    held.forEach(Buffer::release);
                }
            }).subscribeOn(parallel).block(Duration.ofSeconds(30));
            assertThat(failed).isInstanceOf(InsufficientResourcesException.class);
            assertThat(((TransportException) failed).isRetryable()).isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("no wait for a growth that never comes")
                    .isLessThan(Duration.ofSeconds(9));

            // Reserved ahead on a thread that may block: a burst on a non-blocking thread registers nothing more.
            registrationFails.set(false);
            watched.buffers().reserve(512, 3000);
            registeringThreads.clear();
            List<Buffer> reserved = Mono.fromCallable(() -> {
                List<Buffer> l = new ArrayList<>();
                for (int i = 0; i < 3000; i++) {
                    l.add(watched.allocate(512));
                }
                return l;
            }).subscribeOn(parallel).block(Duration.ofSeconds(30));
            assertThat(reserved).hasSize(3000);
            assertThat(registeringThreads).noneMatch(n -> n.startsWith("non-blocking-allocator"));
            reserved.forEach(Buffer::release);
        } finally {
            parallel.dispose();
            watched.close();
        }
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

    @Test
    void outstandingCountsBuffersWhicheverThreadTakesAndReleasesThem() {
        // The first non-blocking thread to use the pool keeps its stacks at hand, any other looks its own up, and a
        // thread that may block counts in the pool itself: a buffer may be taken on one and released on another.
        Scheduler first = Schedulers.newSingle("non-blocking-first");
        Scheduler second = Schedulers.newSingle("non-blocking-second");
        try {
            List<Buffer> taken = Mono.fromCallable(() -> {
                List<Buffer> l = new ArrayList<>();
                for (int i = 0; i < 100; i++) {
                    l.add(domain.allocate(64 << (i % 4)));
                }
                return l;
            }).subscribeOn(first).block(Duration.ofSeconds(10));
            List<Buffer> mine = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                mine.add(domain.allocate(128));
            }
            List<Buffer> theirs = Mono.fromCallable(() -> List.of(domain.allocate(64), domain.allocate(4096)))
                    .subscribeOn(second).block(Duration.ofSeconds(10));
            assertThat(domain.buffers().outstanding()).isEqualTo(132);

            taken.subList(0, 60).forEach(Buffer::release);
            Mono.fromRunnable(() -> mine.forEach(Buffer::release)).subscribeOn(second).block(Duration.ofSeconds(10));
            Mono.fromRunnable(() -> theirs.forEach(Buffer::release)).subscribeOn(first).block(Duration.ofSeconds(10));
            assertThat(domain.buffers().outstanding()).isEqualTo(40);

            Mono.fromRunnable(() -> taken.subList(60, 100).forEach(Buffer::release)).subscribeOn(second)
                    .block(Duration.ofSeconds(10));
            assertThat(domain.buffers().outstanding()).isZero();
        } finally {
            first.dispose();
            second.dispose();
        }
    }
}
