package dev.rivulet.core.remote;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.rivulet.core.engine.AtomicOp;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.internal.MemoryAccess;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.AccessScope;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.NativeRegistration;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The software target against requests whose every field a peer chooses: live, revoked and made-up keys, addresses
 * inside, at the edges of and far from a window, negative and oversized lengths, every right, widths and alignments
 * of atomics, grants made for this connection, for another one or for any, and all five ways in (one-shot put, get
 * and atomic, and the pinned access that copies in or out). An independent model of the rules decides each answer.
 *
 * <p>What must hold for every input: an access is carried out exactly when a live grant under its key, made for
 * this connection or for any, has the right it needs and covers every byte (an atomic also 4 or 8 bytes wide and
 * aligned to that); it then changes exactly those bytes as the model says, and a refusal changes nothing; no byte
 * outside the granted window, nor around the region, ever changes; every refusal is a
 * {@link RemoteAccessException} with the one text {@link MemoryDomain#REFUSED} (or {@code false} from the
 * {@code try} forms); and no access leaves the region pinned, so it deregisters as soon as it is closed.
 */
class SoftwareTargetFuzzTest {

    private static final MemoryAccess MEMORY = Internals.memory();
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG.withOrder(ByteOrder.nativeOrder());
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT.withOrder(ByteOrder.nativeOrder());
    /** Bytes of unregistered memory on each side of the region, which must never change. */
    private static final int GUARD = 64;
    private static final int REGION = 512;
    private static final int GRANTS = 5;
    private static final int LOCAL = 1024;
    private static final Access[] RIGHTS = {Access.REMOTE_READ, Access.REMOTE_WRITE, Access.REMOTE_ATOMIC};
    private static final AccessScope CONNECTION_A = new AccessScope() {
    };
    private static final AccessScope CONNECTION_B = new AccessScope() {
    };

    /** What drives one run: the fuzzer's bytes, or a seeded random source. */
    private interface Choices {
        /** A number in {@code [0, bound)}. */
        int below(int bound);

        long anyLong();

        boolean more();
    }

    @FuzzTest(maxDuration = "30s")
    void hostileRequestsNeverReachBeyondAGrant(FuzzedDataProvider data) {
        run(new Choices() {
            @Override
            public int below(int bound) {
                return data.consumeInt(0, bound - 1);
            }

            @Override
            public long anyLong() {
                return data.consumeLong();
            }

            @Override
            public boolean more() {
                return data.remainingBytes() > 0;
            }
        }, 400);
    }

    @Test
    void manySeededRunsHoldTheRules() {
        for (long seed = 0; seed < 200; seed++) {
            Random random = new Random(seed);
            run(new Choices() {
                @Override
                public int below(int bound) {
                    return random.nextInt(bound);
                }

                @Override
                public long anyLong() {
                    return random.nextLong();
                }

                @Override
                public boolean more() {
                    return true;
                }
            }, 300);
        }
    }

    private static void run(Choices c, int maxSteps) {
        AtomicInteger registered = new AtomicInteger();
        MemoryDomain domain = MEMORY.newDomain("fuzz", (segment, access, key) -> {
            registered.incrementAndGet();
            return NativeRegistration.checkedInSoftware(segment, key, null, registered::decrementAndGet);
        });
        try (Arena arena = Arena.ofShared()) {
            MemorySegment all = arena.allocate(GUARD + REGION + GUARD, 64);
            byte[] model = new byte[(int) all.byteSize()];
            for (int i = 0; i < model.length; i++) {
                model[i] = (byte) (i * 31 + 7);
            }
            MemorySegment.copy(model, 0, all, ValueLayout.JAVA_BYTE, 0, model.length);
            MemoryRegion region = domain.register(all.asSlice(GUARD, REGION), RIGHTS);
            List<Window> windows = new ArrayList<>();
            for (int i = 0; i < GRANTS; i++) {
                windows.add(grant(c, domain, region));
            }
            SoftwareTarget a = new SoftwareTarget(domain, CONNECTION_A);
            SoftwareTarget b = new SoftwareTarget(domain, CONNECTION_B);
            for (int step = 0; step < maxSteps && c.more(); step++) {
                if (c.below(16) == 0) {
                    windows.get(c.below(GRANTS)).grant.close(); // revoked: every later access is refused
                }
                boolean fromA = c.below(2) == 0;
                step(c, fromA ? a : b, fromA ? CONNECTION_A : CONNECTION_B, windows, all, model);
                assertThat(all.toArray(ValueLayout.JAVA_BYTE)).as("the memory after step %d", step)
                        .isEqualTo(model);
            }
            region.close();
            assertThat(registered.get()).as("registrations left once the region closed (a pin leaked)").isZero();
        } finally {
            MEMORY.close(domain);
        }
    }

    /** A grant and what the model knows of it. */
    private record Window(Grant grant, long key, long base, long offset, long length, Set<Access> rights,
                          AccessScope scope) {
    }

    private static Window grant(Choices c, MemoryDomain domain, MemoryRegion region) {
        long offset = c.below(REGION);
        long length = 1 + c.below((int) (REGION - offset));
        EnumSet<Access> rights = EnumSet.noneOf(Access.class);
        for (Access r : RIGHTS) {
            if (c.below(2) == 0) {
                rights.add(r);
            }
        }
        if (rights.isEmpty()) {
            rights.add(RIGHTS[c.below(RIGHTS.length)]);
        }
        AccessScope scope = switch (c.below(3)) {
            case 0 -> null;
            case 1 -> CONNECTION_A;
            default -> CONNECTION_B;
        };
        Grant g = MEMORY.grant(domain, region.slice(offset, length), rights, scope);
        return new Window(g, g.remote().key(), g.remoteBase(), offset, length, rights, scope);
    }

    private static void step(Choices c, SoftwareTarget target, AccessScope requester, List<Window> windows,
                             MemorySegment all, byte[] model) {
        Window w = windows.get(c.below(windows.size()));
        long key = switch (c.below(6)) {
            case 0 -> c.anyLong();
            case 1 -> w.key() + 1;
            default -> w.key();
        };
        long address = switch (c.below(6)) {
            case 0 -> c.anyLong();
            case 1 -> w.base() + w.length() - c.below(16);
            case 2 -> w.base() - 1 - c.below(8);
            case 3 -> (w.base() + c.below((int) w.length() + 1)) & ~7L;
            default -> w.base() + c.below((int) w.length() + 8);
        };
        int kind = c.below(5);
        if (kind == 4) {
            atomic(c, target, requester, windows, all, model, key, address);
            return;
        }
        long length = switch (c.below(5)) {
            case 0 -> c.anyLong();
            case 1 -> -1 - c.below(8);
            case 2 -> 0;
            default -> c.below((int) w.length() + 16);
        };
        boolean write = kind % 2 == 0;
        Window allowed = allowed(windows, key, address, length, write ? Access.REMOTE_WRITE : Access.REMOTE_READ,
                requester);
        byte[] local = new byte[LOCAL];
        new Random(c.anyLong()).nextBytes(local);
        MemorySegment localSegment = MemorySegment.ofArray(local.clone());
        boolean done;
        if (kind < 2) { // one-shot put or get, throwing form
            try {
                if (write) {
                    target.put(key, address, localSegment, 0, length);
                } else {
                    target.get(key, address, localSegment, 0, length);
                }
                done = true;
            } catch (RemoteAccessException e) {
                assertThat(e).hasMessage(MemoryDomain.REFUSED);
                done = false;
            }
        } else { // the pinned access: resolve, copy, release
            Grant g = target.tryResolve(key, address, length, write ? Access.REMOTE_WRITE : Access.REMOTE_READ);
            done = g != null;
            if (g != null) {
                try {
                    assertThat(write ? target.copyIn(g, address, localSegment, 0, length)
                            : target.copyOut(g, address, localSegment, 0, length)).isTrue();
                } finally {
                    target.release(g);
                }
            }
        }
        assertThat(done).as("%s of %d at %d under %s", write ? "put" : "get", length, address,
                allowed != null ? "a grant allowing it" : "no grant allowing it").isEqualTo(allowed != null);
        if (!done) {
            assertThat(localSegment.toArray(ValueLayout.JAVA_BYTE)).as("local memory of a refused access")
                    .isEqualTo(local);
            return;
        }
        int at = GUARD + (int) (allowed.offset() + address - allowed.base());
        if (write) {
            System.arraycopy(local, 0, model, at, (int) length);
        } else {
            System.arraycopy(model, at, local, 0, (int) length);
            assertThat(localSegment.toArray(ValueLayout.JAVA_BYTE)).as("what a get read").isEqualTo(local);
        }
    }

    private static void atomic(Choices c, SoftwareTarget target, AccessScope requester, List<Window> windows,
                               MemorySegment all, byte[] model, long key, long address) {
        int[] widths = {4, 8, 8, 4, 0, 1, 2, 16, -4, 3};
        int width = widths[c.below(widths.length)];
        AtomicOp op = AtomicOp.values()[c.below(AtomicOp.values().length)];
        long operand = c.anyLong();
        Window allowed = (width == 4 || width == 8) && (address & (width - 1)) == 0
                ? allowed(windows, key, address, width, Access.REMOTE_ATOMIC, requester) : null;
        long compare = c.anyLong();
        int at = allowed == null ? -1 : GUARD + (int) (allowed.offset() + address - allowed.base());
        MemorySegment modelSegment = MemorySegment.ofArray(model);
        long current = at < 0 ? 0 : width == 8 ? modelSegment.get(LONG.withByteAlignment(1), at)
                : modelSegment.get(INT.withByteAlignment(1), at);
        if (at >= 0 && c.below(2) == 0) {
            compare = current; // a compare-and-swap that succeeds
        }
        long previous;
        try {
            previous = target.atomic(op, width, key, address, operand, compare);
        } catch (RemoteAccessException e) {
            assertThat(e).hasMessage(MemoryDomain.REFUSED);
            assertThat(allowed).as("atomic %s of width %d at %d refused", op, width, address).isNull();
            return;
        }
        if (allowed == null) {
            fail("atomic %s of width %d at %d under key %d ran without a grant allowing it", op, width, address,
                    key);
        }
        assertThat(previous).isEqualTo(current);
        long next = switch (op) {
            case ADD, FETCH_ADD -> current + operand;
            case SWAP -> operand;
            case COMPARE_SWAP -> (width == 8 ? current == compare : (int) current == (int) compare) ? operand
                    : current;
        };
        if (width == 8) {
            modelSegment.set(LONG.withByteAlignment(1), at, next);
        } else {
            modelSegment.set(INT.withByteAlignment(1), at, (int) next);
        }
    }

    /** The model: the window that allows this access, or null when it must be refused. */
    private static Window allowed(List<Window> windows, long key, long address, long length, Access needed,
                                  AccessScope requester) {
        for (Window w : windows) {
            if (w.key() != key || !w.grant().isOpen()) {
                continue;
            }
            long rel = address - w.base();
            boolean covers = length >= 0 && rel >= 0 && rel <= w.length() - length;
            boolean forThisConnection = w.scope() == null || w.scope() == requester;
            return covers && forThisConnection && w.rights().contains(needed) ? w : null;
        }
        return null;
    }
}
