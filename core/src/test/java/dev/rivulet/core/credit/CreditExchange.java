package dev.rivulet.core.credit;

import dev.rivulet.core.error.CreditProtocolException;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The credit protocol between two connected sides, each with a real {@link CreditLedger} and {@link CreditGate},
 * driven through an interleaving of demand, cancels, sends, deliveries, grants and closes that a source of
 * {@link Choices} picks: the fuzzer's data in {@link CreditLedgerFuzzTest}, a seeded random generator in
 * {@link CreditLedgerInterleavingTest}. The sides follow the engine's rules (receive slots from
 * {@link CreditLedger#slotsToGrant}, grants piggybacked on data or standalone when {@link CreditLedger#standaloneGrant}
 * says so, at most one standalone word outstanding, coalesced frames of several messages); the words travel in
 * order, as on every transport. What must hold:
 *
 * <ul>
 *   <li><b>window</b>: a side never has more credits outstanding than its receive depth, and the messages in flight
 *       toward it plus what its peer may still send never exceed what it granted;</li>
 *   <li><b>no credit lost</b>: every credit granted is used, owed, in flight, or in the peer's window, at every
 *       step; at the end (after closes) granted = used + outstanding, and what is outstanding is exactly what was
 *       never announced, left unused by the peer, or arrived after this side closed;</li>
 *   <li><b>no violation</b>: the gate never refuses a message of a peer that kept the rules;</li>
 *   <li><b>no deadlock</b>: run fairly to quiescence, a side is never left with demand while its open peer still
 *       has messages to send.</li>
 * </ul>
 */
final class CreditExchange {

    /** The longest script played: long enough to wrap small windows many times over. */
    static final int MAX_STEPS = 300;
    private static final int MAX_DEPTH = 16;
    /** The most messages one step requests, enqueues or coalesces into a frame. */
    private static final int MAX_BATCH = 8;
    /**
     * The steps to pick from, each as often as it appears: a close ends all traffic for good, so it comes an eighth as
     * often as any other step, or most scripts would close within a few steps and leave nothing to check.
     */
    private static final Step[] STEPS = Arrays.stream(Step.values())
            .flatMap(s -> Stream.generate(() -> s).limit(s == Step.CLOSE ? 1 : 8))
            .toArray(Step[]::new);

    /** What a script is made of: the fuzzer's bytes or a seeded generator's numbers. */
    interface Choices {
        /** A number from {@code min} to {@code max}, both included. */
        int between(int min, int max);

        boolean flip();

        /** Whether the source has anything left to choose from. */
        boolean hasMore();
    }

    /** One step of the script, on one side. */
    private enum Step { REQUEST, CANCEL, ENQUEUE, POST, DELIVER, CONSUME, SERVICE, GRANT, CLOSE }

    private final Side a;
    private final Side b;

    private CreditExchange(Side a, Side b) {
        this.a = a;
        this.b = b;
        a.peer = b;
        b.peer = a;
    }

    /**
     * Plays one script of at most {@code maxSteps} steps, checking the invariants after each, then runs both sides
     * fairly to quiescence and checks that nothing stalled and no credit was lost.
     */
    static void play(Choices choices, int maxSteps) {
        CreditExchange x = new CreditExchange(
                new Side("a", choices.between(1, MAX_DEPTH), choices.flip()),
                new Side("b", choices.between(1, MAX_DEPTH), choices.flip()));
        for (int i = 0; i < maxSteps && choices.hasMore(); i++) {
            Side side = choices.flip() ? x.a : x.b;
            Step step = STEPS[choices.between(0, STEPS.length - 1)];
            side.run(step, choices.between(1, MAX_BATCH));
            checkInvariants(x.a, x.b);
        }
        settle(x.a, x.b);
        checkInvariants(x.a, x.b);
        x.a.checkNoStall();
        x.b.checkNoStall();
        x.a.checkNothingLost();
        x.b.checkNothingLost();
    }

    /** Runs every step of both sides fairly until nothing changes: what a progress loop does forever. */
    private static void settle(Side a, Side b) {
        for (int round = 0; round < 100_000; round++) {
            long before = a.progress() + b.progress();
            for (Side s : new Side[] {a, b}) {
                s.run(Step.SERVICE, 1);
                s.run(Step.POST, 1);
                s.run(Step.GRANT, 1);
                while (!s.toPeer.isEmpty()) {
                    s.peer.run(Step.DELIVER, 1);
                }
                s.run(Step.CONSUME, 1);
            }
            checkInvariants(a, b);
            if (a.progress() + b.progress() == before) {
                return;
            }
        }
        throw new AssertionError("no quiescence after 100000 rounds");
    }

    private static void checkInvariants(Side a, Side b) {
        for (Side s : new Side[] {a, b}) {
            CreditLedger l = s.ledger;
            assertThat(l.outstanding()).as("%s: outstanding within the receive depth", s).isBetween(0L, (long) s.depth);
            assertThat(l.unused()).as("%s: unused credits", s).isGreaterThanOrEqualTo(0);
            assertThat(l.owed()).as("%s: owed within outstanding", s).isBetween(0L, l.outstanding());
            assertThat(l.window()).as("%s: send window", s).isGreaterThanOrEqualTo(0);
            assertThat(l.granted()).as("%s: granted = used + outstanding", s).isEqualTo(l.used() + l.outstanding());
            assertThat(l.received()).as("%s: received = window + sent", s).isEqualTo(l.window() + l.sentMessages());
            if (!s.closed && !s.peer.closed) {
                // What this side granted and has not seen used is owed, on its way, or in the peer's hands.
                assertThat(l.outstanding() - l.owed())
                        .as("%s: granted credits accounted for on the way and at the peer", s)
                        .isEqualTo(s.creditsInFlight() + s.peer.ledger.window() + s.peer.messagesInFlight());
            }
            assertThat(s.peer.messagesInFlight()).as("%s: messages in flight toward it within its credits", s)
                    .isLessThanOrEqualTo(l.outstanding());
        }
    }

    /** A word on its way, in order: its control word and, for data, the frame it carries. */
    private record Word(long word, int messages, MemorySegment frame) {
    }

    /** One endpoint as far as credits go: a receive subscriber, a queue of sends, the engine's credit rules. */
    private static final class Side {
        final String name;
        final int depth;
        final boolean admitsOnArrival;
        final CreditLedger ledger;
        final CreditGate gate;
        final ArrayDeque<Word> toPeer = new ArrayDeque<>();
        Side peer;

        boolean subscribed = true;
        long demand;
        long undelivered;
        int work;
        boolean standaloneInFlight;
        boolean closed;
        boolean peerClosed;
        long droppedAfterClose;
        /** Counts every change, so that the fair scheduler knows when nothing moves any more. */
        long moves;

        Side(String name, int depth, boolean admitsOnArrival) {
            this.name = name;
            this.depth = depth;
            this.admitsOnArrival = admitsOnArrival;
            this.ledger = new CreditLedger(depth);
            this.gate = ledger.gate();
        }

        void run(Step step, int n) {
            switch (step) {
                case REQUEST -> request(n);
                case CANCEL -> {
                    subscribed = false; // slots already granted stay: their messages wait for the next subscriber
                    demand = 0;
                }
                case ENQUEUE -> {
                    if (!closed) {
                        work += n;
                    }
                }
                case POST -> post(n);
                case DELIVER -> deliverNext();
                case CONSUME -> consume();
                case SERVICE -> service();
                case GRANT -> grantStandalone();
                case CLOSE -> close();
            }
        }

        void request(int n) {
            if (!subscribed) {
                subscribed = true;
                demand = 0;
            }
            demand += n;
            consume();
            service();
        }

        /** As the engine's receiver service: delivers what is here, then grants slots for what is still wanted. */
        void service() {
            consume();
            if (closed || !subscribed) {
                return;
            }
            int slots = ledger.slotsToGrant(demand, Integer.MAX_VALUE, (int) undelivered);
            if (slots > 0) {
                ledger.grant(slots);
                moves++;
            }
        }

        void consume() {
            while (subscribed && demand > 0 && undelivered > 0) {
                demand--;
                undelivered--;
                moves++;
            }
        }

        /** As the engine's drain: sends one message, or a coalesced frame of up to {@code batch}, per credit. */
        void post(int batch) {
            if (closed || work == 0 || ledger.window() == 0) {
                return;
            }
            int n = (int) Math.min(Math.min(work, ledger.window()), batch);
            long grant = ledger.piggybackGrant();
            long word = ControlWord.encode(n == 1 ? ControlWord.DATA : ControlWord.BATCH, grant);
            ledger.announced(grant);
            ledger.sent(n);
            work -= n;
            moves++;
            toPeer.addLast(new Word(word, n, MemorySegment.ofArray(new byte[n == 1 ? 0 : n * BatchFraming.RECORD_HEADER])));
        }

        /** As the engine at the end of a progress cycle: at most one standalone grant on its way. */
        void grantStandalone() {
            if (closed || standaloneInFlight) {
                return;
            }
            long grant = ledger.standaloneGrant();
            if (grant > 0) {
                ledger.announced(grant);
                standaloneInFlight = true;
                moves++;
                toPeer.addLast(new Word(ControlWord.encode(ControlWord.CREDIT, grant), 0, null));
            }
        }

        void close() {
            if (closed) {
                return;
            }
            closed = true;
            work = 0; // pending sends fail
            toPeer.addLast(new Word(ControlWord.encode(ControlWord.CLOSE, 0), 0, null));
        }

        /** The next word from the peer arrives here: through the gate, as a wire and then the engine take it. */
        void deliverNext() {
            Word w = peer.toPeer.pollFirst();
            if (w == null) {
                return;
            }
            moves++;
            int type = ControlWord.type(w.word());
            if (type == ControlWord.CREDIT) {
                peer.standaloneInFlight = false; // its send completed
            }
            try {
                if (admitsOnArrival && w.messages() > 0) {
                    if (type == ControlWord.DATA) {
                        gate.admit();
                    } else {
                        gate.requireCredit();
                        gate.admitBatch(w.frame(), w.frame().byteSize());
                    }
                }
                CreditGate.checkWord(w.word());
                ledger.peerGranted(ControlWord.credits(w.word()));
                if (type == ControlWord.CLOSE) {
                    if (!closed) {
                        peerClosed = true;
                        closed = true;
                        work = 0;
                    }
                    return;
                }
                if (w.messages() == 0) {
                    return;
                }
                if (closed && !peerClosed) {
                    droppedAfterClose += w.messages();
                    return;
                }
                int n = gate.take(type, w.frame(), w.frame().byteSize());
                assertThat(n).as("%s: messages taken", this).isEqualTo(w.messages());
                undelivered += n;
                service();
            } catch (CreditProtocolException e) {
                throw new AssertionError(this + ": the gate refused a peer that kept the rules", e);
            }
        }

        long messagesInFlight() {
            return toPeer.stream().mapToLong(Word::messages).sum();
        }

        long creditsInFlight() {
            return toPeer.stream().mapToLong(w -> ControlWord.credits(w.word())).sum();
        }

        long progress() {
            return moves;
        }

        /** Settled: demand here and work at an open peer would mean credits stopped flowing. */
        void checkNoStall() {
            boolean wants = subscribed && !closed && demand > undelivered;
            assertThat(wants && peer.work > 0 && !peer.closed)
                    .as("%s waits for messages (demand %d) its peer has (%d) but cannot send (window %d, owed %d)",
                            this, demand, peer.work, peer.ledger.window(), ledger.owed())
                    .isFalse();
        }

        /** Granted = used + outstanding, and outstanding is only what never was announced, sent or taken. */
        void checkNothingLost() {
            assertThat(toPeer).as("%s: settled with words on the way", this).isEmpty();
            assertThat(ledger.outstanding())
                    .as("%s: outstanding = owed + the peer's unused window + dropped after close", this)
                    .isEqualTo(ledger.owed() + peer.ledger.window() + droppedAfterClose);
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
