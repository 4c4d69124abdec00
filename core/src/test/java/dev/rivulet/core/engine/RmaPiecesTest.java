package dev.rivulet.core.engine;

import dev.rivulet.core.Capabilities;
import dev.rivulet.core.Completion;
import dev.rivulet.core.Operation;
import dev.rivulet.core.Ordering;
import dev.rivulet.core.error.ProviderException;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RemoteMemory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Puts and gets above the wire's {@code maxRmaSize} against a wire whose every answer the test chooses: pieces it
 * completes at once ({@code DONE}), later, or never until told, pieces it has no room for, refuses by throwing or
 * reports failed. The kit runs the split on real transports; this covers the answers they seldom give.
 */
class RmaPiecesTest {

    private static final int MAX = 100;
    private static final int DEPTH = 4;
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Capabilities CAPS = new Capabilities("script", EnumSet.of(Operation.PUT, Operation.GET,
            Operation.FLUSH), 1024, 0, 1, EnumSet.allOf(Ordering.class), DEPTH, DEPTH, 1e9, Duration.ofNanos(1000),
            Completion.REMOTE, Completion.REMOTE, Completion.REMOTE, MAX, true, 64, true, false);
    private static final ScriptedTransport TRANSPORT = new ScriptedTransport(CAPS);

    /** What the wire does with the {@code n}th piece posted to it. */
    enum Answer { POSTED, DONE, NO_RESOURCE_ONCE, THROW, FAIL, HOLD }

    private final Arena arena = Arena.ofShared();
    private MemoryRegion local;
    private final RemoteMemory remote = new RemoteMemory(0, 4096, 1, null);

    @BeforeEach
    void register() {
        local = TRANSPORT.memory().register(arena.allocate(4096, 64));
    }

    @AfterEach
    void release() {
        local.close();
        arena.close();
    }

    @AfterAll
    static void closeTransport() {
        TRANSPORT.dispose();
    }

    @Test
    void aPutAboveTheLimitGoesAsContiguousPiecesEachWithinItAndNoMoreAtOnceThanTheSendSlots() {
        ScriptedWire wire = new ScriptedWire(n -> switch (n % 4) {
            case 1 -> Answer.DONE;
            case 2 -> Answer.NO_RESOURCE_ONCE;
            default -> Answer.POSTED;
        });
        EndpointEngine ep = TRANSPORT.open(wire);
        StepVerifier.create(ep.put(local.slice(7, 1050), remote.slice(30, 1050))).verifyComplete();
        List<long[]> pieces = wire.pieces();
        assertThat(pieces).hasSize(11);
        long at = 0;
        for (long[] p : pieces) {
            assertThat(p[2]).isBetween(1L, (long) MAX);
            assertThat(p[0]).as("local offset").isEqualTo(7 + at);
            assertThat(p[1]).as("remote address").isEqualTo(30 + at);
            at += p[2];
        }
        assertThat(at).isEqualTo(1050);
        assertThat(wire.maxOutstanding).isLessThanOrEqualTo(DEPTH);
        assertThat(local.whenUnpinned().block(TIMEOUT)).isNull();
        close(ep);
    }

    @Test
    void aGetWithinTheLimitGoesWhole() {
        ScriptedWire wire = new ScriptedWire(n -> Answer.POSTED);
        EndpointEngine ep = TRANSPORT.open(wire);
        StepVerifier.create(ep.get(remote, local.slice(0, MAX))).verifyComplete();
        assertThat(wire.pieces()).hasSize(1);
        close(ep);
    }

    @Test
    void aPieceTheWireRefusesFailsTheOperationOnlyOnceThePiecesPostedAreBack() {
        ScriptedWire wire = new ScriptedWire(n -> n < 3 ? Answer.HOLD : Answer.THROW);
        EndpointEngine ep = TRANSPORT.open(wire);
        Mono<Void> get = ep.get(remote, local.slice(0, 1000)).cache();
        get.subscribe(null, e -> { });
        await(() -> wire.posts() == 4, "the fourth piece refused");
        assertThat(local.whenUnpinned().toFuture()).as("pinned while pieces are out").isNotDone();
        wire.releaseHeld();
        StepVerifier.create(get).expectError(ProviderException.class).verify(TIMEOUT);
        assertThat(wire.posts()).as("no piece after the refused one").isEqualTo(4);
        assertThat(local.whenUnpinned().block(TIMEOUT)).isNull();
        close(ep);
    }

    @Test
    void aFailedPieceStopsTheOperationWithTheFirstFailure() {
        ScriptedWire wire = new ScriptedWire(n -> n == 1 ? Answer.FAIL : Answer.POSTED);
        EndpointEngine ep = TRANSPORT.open(wire);
        StepVerifier.create(ep.put(local.slice(0, 2000), remote)).expectError(RemoteAccessException.class)
                .verify(TIMEOUT);
        assertThat(wire.posts()).as("pieces posted before the failure was reported, at most the send slots")
                .isLessThanOrEqualTo(1 + DEPTH);
        assertThat(local.whenUnpinned().block(TIMEOUT)).isNull();
        StepVerifier.create(ep.put(local.slice(0, 10), remote)).verifyComplete();
        close(ep);
    }

    @Test
    void cancellingPostsNoFurtherPieceAndUnpinsOnceThoseOutAreBack() {
        ScriptedWire wire = new ScriptedWire(n -> Answer.HOLD);
        EndpointEngine ep = TRANSPORT.open(wire);
        Disposable put = ep.put(local.slice(0, 2000), remote).subscribe(null, e -> { });
        await(() -> wire.posts() == DEPTH, "the send slots filled");
        put.dispose();
        assertThat(local.whenUnpinned().toFuture()).as("pinned while pieces are out").isNotDone();
        wire.releaseHeld();
        assertThat(local.whenUnpinned().block(TIMEOUT)).isNull();
        StepVerifier.create(ep.flush()).verifyComplete();
        assertThat(wire.posts()).isEqualTo(DEPTH);
        close(ep);
    }

    private static void close(EndpointEngine ep) {
        ep.dispose();
        ep.onClose().block(TIMEOUT);
    }

    private static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.onSpinWait();
        }
    }

    /** A wire that answers each piece as its script says; its state is read by the test thread, hence the locks. */
    private static final class ScriptedWire implements Wire {
        private final IntFunction<Answer> script;
        private final List<long[]> pieces = new ArrayList<>();
        private final List<Op> completing = new ArrayList<>();
        private final List<Op> failing = new ArrayList<>();
        private final List<Op> held = new ArrayList<>();
        private boolean released;
        private boolean refusedOnce;
        private int outstanding;
        int maxOutstanding;

        ScriptedWire(IntFunction<Answer> script) {
            this.script = script;
        }

        synchronized List<long[]> pieces() {
            return List.copyOf(pieces);
        }

        synchronized int posts() {
            return pieces.size();
        }

        synchronized void releaseHeld() {
            released = true;
        }

        @Override
        public synchronized int rma(Op op) {
            Answer a = script.apply(pieces.size());
            if (a == Answer.NO_RESOURCE_ONCE && !refusedOnce) {
                refusedOnce = true;
                return NO_RESOURCE;
            }
            refusedOnce = false;
            pieces.add(new long[]{op.local().offset(), op.remote().address(), op.local().length()});
            switch (a) {
                case DONE -> {
                    return DONE;
                }
                case THROW -> throw new ProviderException("refused by the script");
                case FAIL -> failing.add(op);
                case HOLD -> held.add(op);
                default -> completing.add(op);
            }
            maxOutstanding = Math.max(maxOutstanding, ++outstanding);
            return POSTED;
        }

        @Override
        public synchronized int poll(WireEvents events) {
            List<Op> done = new ArrayList<>(completing);
            completing.clear();
            if (released) {
                done.addAll(held);
                held.clear();
            }
            List<Op> failed = new ArrayList<>(failing);
            failing.clear();
            outstanding -= done.size() + failed.size();
            failed.forEach(op -> events.failed(op, new RemoteAccessException("remote access refused")));
            done.forEach(op -> events.completed(op, 0));
            return done.size() + failed.size();
        }

        @Override
        public int send(long controlWord, Op op) {
            return DONE;
        }

        @Override
        public void postReceives(int count) {
        }

        @Override
        public int flush(Op op) {
            return DONE;
        }

        @Override
        public Capabilities capabilities() {
            return CAPS;
        }

        @Override
        public String remoteAddress() {
            return "script://peer";
        }

        @Override
        public synchronized void close() {
            released = true; // what is held comes back, as a closed queue pair flushes it
        }
    }
}
