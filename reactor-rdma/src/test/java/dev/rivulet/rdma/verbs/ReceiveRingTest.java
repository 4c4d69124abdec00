package dev.rivulet.rdma.verbs;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The receive queue's bookkeeping: posting order, and work request ids that tell receives from sends. */
class ReceiveRingTest {

    @Test
    void receivesCompleteOnlyOldestFirst() {
        ReceiveRing<String> r = new ReceiveRing<>(3);
        int first = r.nextSlot();
        r.add("a");
        r.add("b");
        assertThat(r.isOldest(first)).isTrue();
        assertThat(r.isOldest(r.slotAfter(-1))).isFalse();
        assertThat(r.takeOldest()).isEqualTo("a");
        assertThat(r.takeOldest()).isEqualTo("b");
        assertThat(r.posted()).isZero();
    }

    @Test
    void aFullRingRefusesAnotherBuffer() {
        ReceiveRing<String> r = new ReceiveRing<>(2);
        r.add("a");
        r.add("b");
        assertThat(r.free()).isZero();
        assertThatThrownBy(() -> r.add("c")).isInstanceOf(IllegalStateException.class);
        r.takeOldest();
        r.add("c"); // wraps into the freed slot
        assertThat(r.takeOldest()).isEqualTo("b");
        assertThat(r.takeOldest()).isEqualTo("c");
    }

    @Test
    void receiveIdsCarryTheFlagAndTheirSlotSendIdsDoNot() {
        long id = ReceiveRing.wrId(7);
        assertThat(ReceiveRing.isReceive(id)).isTrue();
        assertThat(ReceiveRing.slotOf(id)).isEqualTo(7);
        assertThat(ReceiveRing.isReceive(7)).as("a send slot's wr_id").isFalse();
    }
}
