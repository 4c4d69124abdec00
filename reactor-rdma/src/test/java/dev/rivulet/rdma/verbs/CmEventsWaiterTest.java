package dev.rivulet.rdma.verbs;

import dev.rivulet.core.error.ConnectTimeoutException;
import dev.rivulet.core.error.ConnectionRefusedException;
import dev.rivulet.core.error.ProviderException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.rivulet.rdma.verbs.sys.VerbsConstants.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How a set-up thread waits for rdma_cm's steps, and hands the connection's later events to its wire. */
class CmEventsWaiterTest {

    private static CmEvents.Event event(int type, int status) {
        return new CmEvents.Event(type, status, 1, 0, new byte[0], 0, 0);
    }

    private static long soon() {
        return System.nanoTime() + 1_000_000_000L;
    }

    @Test
    void theExpectedEventEndsTheStep() {
        CmEvents.Waiter w = new CmEvents.Waiter();
        w.accept(event(RDMA_CM_EVENT_ADDR_RESOLVED, 0));
        assertThat(w.await(RDMA_CM_EVENT_ADDR_RESOLVED, soon(), "resolving").type())
                .isEqualTo(RDMA_CM_EVENT_ADDR_RESOLVED);
    }

    @Test
    void aRejectionOrAnUnreachablePeerIsARefusal() {
        for (int type : new int[]{RDMA_CM_EVENT_REJECTED, RDMA_CM_EVENT_UNREACHABLE, RDMA_CM_EVENT_CONNECT_ERROR}) {
            CmEvents.Waiter w = new CmEvents.Waiter();
            w.accept(event(type, -111));
            assertThatThrownBy(() -> w.await(RDMA_CM_EVENT_ESTABLISHED, soon(), "connecting"))
                    .isInstanceOf(ConnectionRefusedException.class).hasMessageStartingWith("connecting failed: ");
        }
    }

    @Test
    void anyOtherEventFailsTheStepWithItsName() {
        CmEvents.Waiter w = new CmEvents.Waiter();
        w.accept(event(RDMA_CM_EVENT_ADDR_ERROR, -19));
        assertThatThrownBy(() -> w.await(RDMA_CM_EVENT_ADDR_RESOLVED, soon(), "resolving 10.0.0.1"))
                .isInstanceOf(ProviderException.class).hasMessageStartingWith("resolving 10.0.0.1 failed: ");
    }

    @Test
    void noEventBeforeTheDeadlineIsATimeout() {
        CmEvents.Waiter w = new CmEvents.Waiter();
        assertThatThrownBy(() -> w.await(RDMA_CM_EVENT_ESTABLISHED, System.nanoTime() + 20_000_000L, "connecting"))
                .isInstanceOf(ConnectTimeoutException.class).hasMessage("connecting did not finish in time");
    }

    @Test
    void eventsThatArriveBeforeTheWireTakesOverAreHandedToItFirst() {
        CmEvents.Waiter w = new CmEvents.Waiter();
        w.accept(event(RDMA_CM_EVENT_DISCONNECTED, 0));
        List<Integer> seen = new ArrayList<>();
        w.forward(e -> seen.add(e.type()));
        w.accept(event(RDMA_CM_EVENT_TIMEWAIT_EXIT, 0));
        assertThat(seen).containsExactly(RDMA_CM_EVENT_DISCONNECTED, RDMA_CM_EVENT_TIMEWAIT_EXIT);
    }
}
