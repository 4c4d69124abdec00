package dev.rivulet.rdma.verbs;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Selective signalling bookkeeping: which requests ask for a completion, and what one completion retires. */
class SendQueueTest {

    private static final byte K = 1;

    /** Stages {@code n} requests owned by the given labels and posts them as one chain; returns their slots. */
    private static int[] postChain(SendQueue q, String... owners) {
        int[] slots = new int[owners.length];
        for (int i = 0; i < owners.length; i++) {
            slots[i] = q.reserve(K, owners[i]);
        }
        q.markPosted(owners.length, 0);
        return slots;
    }

    private static List<Boolean> plan(SendQueue q) {
        List<Boolean> s = new ArrayList<>();
        for (int i = 0; i < q.staged(); i++) {
            s.add(q.signalled(i));
        }
        return s;
    }

    @Test
    void everyIntervalthRequestAndTheLastOfAChainAreSignalled() {
        SendQueue q = new SendQueue(32, 4);
        for (int i = 0; i < 10; i++) {
            q.reserve(K, i);
        }
        assertThat(plan(q)).containsExactly(false, false, false, true, false, false, false, true, false, true);
    }

    @Test
    void chainsOfOneAreEachSignalledSoNothingWaitsForCompany() {
        SendQueue q = new SendQueue(8, 16);
        for (int i = 0; i < 5; i++) {
            q.reserve(K, i);
            assertThat(plan(q)).containsExactly(true);
            q.markPosted(1, 0);
        }
    }

    @Test
    void theUnsignalledCountCarriesOverAChainThatEndedUnsignalled() {
        SendQueue q = new SendQueue(32, 4);
        for (int i = 0; i < 5; i++) {
            q.reserve(K, i);
        }
        // a partial post: the first two (unsignalled) went, three stay staged
        q.markPosted(2, 0);
        assertThat(q.staged()).isEqualTo(3);
        // two unsignalled already posted: the next is the 3rd, then the 4th is due a signal
        assertThat(plan(q)).containsExactly(false, true, true);
    }

    @Test
    void aSignalledCompletionRetiresItAndEveryEarlierRequestInOrder() {
        SendQueue q = new SendQueue(16, 4);
        int[] slots = postChain(q, "a", "b", "c", "d", "e");
        List<Object> retired = new ArrayList<>();
        assertThat(q.completeThrough(slots[3], (slot, kind, owner) -> retired.add(owner))).isEqualTo(4);
        assertThat(retired).containsExactly("a", "b", "c", "d");
        assertThat(q.outstanding()).isEqualTo(1);
        assertThat(q.completeThrough(slots[4], (slot, kind, owner) -> retired.add(owner))).isEqualTo(1);
        assertThat(retired).containsExactly("a", "b", "c", "d", "e");
        assertThat(q.free()).isEqualTo(16);
    }

    @Test
    void aCompletionNamingAnUnsignalledOrUnknownSlotRetiresNothing() {
        SendQueue q = new SendQueue(16, 4);
        int[] slots = postChain(q, "a", "b", "c", "d", "e");
        List<Object> retired = new ArrayList<>();
        assertThat(q.completeThrough(slots[1], (slot, kind, owner) -> retired.add(owner))).isEqualTo(-1);
        assertThat(q.completeThrough(12, (slot, kind, owner) -> retired.add(owner))).isEqualTo(-1);
        assertThat(q.completeThrough(-1, (slot, kind, owner) -> retired.add(owner))).isEqualTo(-1);
        assertThat(retired).isEmpty();
        assertThat(q.outstanding()).isEqualTo(5);
    }

    @Test
    void aFullQueueRefusesUntilACompletionFreesSlots() {
        SendQueue q = new SendQueue(4, 2);
        int[] slots = postChain(q, "a", "b", "c", "d");
        assertThat(q.reserve(K, "e")).isEqualTo(-1);
        assertThat(q.free()).isZero();
        q.completeThrough(slots[1], (slot, kind, owner) -> { });
        assertThat(q.free()).isEqualTo(2);
        assertThat(q.reserve(K, "e")).isEqualTo(slots[0]); // the ring wraps
    }

    @Test
    void slotsWrapAroundTheRingAndStillRetireInPostingOrder() {
        SendQueue q = new SendQueue(5, 3);
        List<Object> retired = new ArrayList<>();
        int next = 0;
        for (int round = 0; round < 20; round++) {
            String[] owners = {"r" + next++, "r" + next++, "r" + next++};
            int[] slots = postChain(q, owners);
            assertThat(q.completeThrough(slots[2], (slot, kind, owner) -> retired.add(owner))).isEqualTo(3);
        }
        List<Object> expected = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            expected.add("r" + i);
        }
        assertThat(retired).isEqualTo(expected);
    }

    @Test
    void anErrorSplitsTheQueueIntoSucceededFailedAndFlushed() {
        SendQueue q = new SendQueue(16, 8);
        int[] slots = postChain(q, "a", "b", "c", "d");
        q.reserve(K, "staged");
        List<String> outcome = new ArrayList<>();
        q.completeBefore(slots[2], (slot, kind, owner) -> outcome.add(owner + ":ok"));
        assertThat(q.completeOldestIf(slots[3], (slot, kind, owner) -> outcome.add(owner + ":wrong"))).isFalse();
        q.completeOldestIf(slots[2], (slot, kind, owner) -> outcome.add(owner + ":failed"));
        q.drain((slot, kind, owner) -> outcome.add(owner + ":flushed"));
        assertThat(outcome).containsExactly("a:ok", "b:ok", "c:failed", "d:flushed", "staged:flushed");
        assertThat(q.free()).isEqualTo(16);
        assertThat(q.staged()).isZero();
    }

    @Test
    void theOldestOutstandingRequestSaysWhenItWasDue() {
        SendQueue q = new SendQueue(8, 2);
        assertThat(q.oldestDueBy()).isEqualTo(Long.MAX_VALUE);
        int a = q.reserve(K, "a");
        q.markPosted(1, 100);
        q.reserve(K, "b");
        q.markPosted(1, 200);
        assertThat(q.oldestDueBy()).isEqualTo(100);
        q.completeThrough(a, (slot, kind, owner) -> { });
        assertThat(q.oldestDueBy()).isEqualTo(200);
    }

    @Test
    void postingMoreThanWasStagedIsABug() {
        SendQueue q = new SendQueue(8, 2);
        q.reserve(K, "a");
        assertThatThrownBy(() -> q.markPosted(2, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * Random chains, partial posts and completions: every request is retired exactly once, in posting order, and
     * after every post the newest outstanding request is signalled, so a completion that retires everything always
     * comes (no request is stranded behind silence).
     */
    @Test
    void randomTrafficRetiresEveryRequestOnceInOrderAndNeverStrandsOne() {
        SplittableRandom rnd = new SplittableRandom(42);
        for (int run = 0; run < 50; run++) {
            int capacity = 1 + rnd.nextInt(40);
            SendQueue q = new SendQueue(capacity, 1 + rnd.nextInt(20));
            List<Integer> retired = new ArrayList<>();
            List<Integer> signalledSlots = new ArrayList<>();
            int issued = 0;
            for (int step = 0; step < 400; step++) {
                int stage = rnd.nextInt(q.free() + 1);
                for (int i = 0; i < stage; i++) {
                    q.reserve(K, issued++);
                }
                int staged = q.staged();
                int post = staged == 0 ? 0 : rnd.nextInt(4) == 0 ? rnd.nextInt(staged + 1) : staged;
                for (int i = 0; i < post; i++) {
                    if (q.signalled(i)) {
                        signalledSlots.add(q.stagedSlot(i));
                    }
                }
                boolean lastSignalled = post > 0 && q.signalled(post - 1);
                q.markPosted(post, 0);
                if (post == staged && post > 0) {
                    assertThat(lastSignalled).as("the last request of a full post is signalled").isTrue();
                }
                // The device completes some signalled requests, in order.
                while (!signalledSlots.isEmpty() && rnd.nextBoolean()) {
                    int slot = signalledSlots.removeFirst();
                    assertThat(q.completeThrough(slot, (s, k, o) -> retired.add((Integer) o))).isPositive();
                }
            }
            // Post what is left and let every signalled request complete.
            int staged = q.staged();
            for (int i = 0; i < staged; i++) {
                if (q.signalled(i)) {
                    signalledSlots.add(q.stagedSlot(i));
                }
            }
            q.markPosted(staged, 0);
            for (int slot : signalledSlots) {
                q.completeThrough(slot, (s, k, o) -> retired.add((Integer) o));
            }
            assertThat(q.outstanding()).as("nothing stranded").isZero();
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < issued; i++) {
                expected.add(i);
            }
            assertThat(retired).isEqualTo(expected);
        }
    }
}
