package dev.rivulet.conformance;

import dev.rivulet.core.error.InvalidMemoryException;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.LeakDetector;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How long a buffer {@code receive()} lends stays usable, with the leak detector off as much as on: on the thread it
 * was lent to until {@code onNext} returns, and after that only if the subscriber retained it during {@code onNext}.
 * A buffer kept without {@code retain()} must fail with {@link InvalidMemoryException} on every access from another
 * thread and after the stream, never read another message's bytes; a retained one keeps its bytes; nothing leaks,
 * by the detector's count and by the pools' own.
 */
public abstract class LentBufferConformance extends InteractionConformance {

    /** More messages than a receiver has view objects to lend, so stale views meet their objects lent again. */
    private static final int MANY = 3_000;

    private Disposable sendSequence(int count, int size) {
        return client().send(sequence(client(), count, size)).subscribe(null, e -> { });
    }

    private static String tryRead(Buffer b) {
        try {
            b.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
            return "read";
        } catch (InvalidMemoryException e) {
            return "refused";
        }
    }

    /** Both endpoints closed, no buffer of either transport's pool is still out. */
    private void expectPoolsBackToZero() {
        pair.close();
        awaitTrue(() -> server().memory().buffers().outstanding() == 0
                && client().memory().buffers().outstanding() == 0, "every pooled buffer back in its pool");
    }

    @ParameterizedTest
    @EnumSource(LeakDetector.Level.class)
    void aBufferHandedToAnotherThreadWithoutRetainFailsThereEveryTime(LeakDetector.Level level) {
        LeakDetector.enable(level);
        Disposable sending = sendSequence(MANY, 64);
        List<String> reads = server().receive()
                .take(MANY)
                .publishOn(Schedulers.boundedElastic()) // no retain(): each buffer was lent to the loop's thread
                .map(LentBufferConformance::tryRead)
                .collectList()
                .block(TIMEOUT);
        assertThat(reads).hasSize(MANY).containsOnly("refused");
        sending.dispose();
        expectPoolsBackToZero();
    }

    @ParameterizedTest
    @EnumSource(LeakDetector.Level.class)
    void aBufferKeptPastOnNextFailsOnItsOwnThreadAndAfterTheStream(LeakDetector.Level level) {
        LeakDetector.enable(level);
        int count = 500; // fewer than a receiver's view objects: none of these is lent again meanwhile
        Disposable sending = sendSequence(count, 64);
        List<String> onLoop = new ArrayList<>();
        List<Buffer> kept = server().receive()
                .take(count)
                .collectList() // no retain(): the list holds references that outlive their onNext
                .doOnNext(list -> {
                    // On the lending thread, inside the last onNext: every earlier buffer's loan has ended.
                    for (Buffer b : list.subList(0, count - 1)) {
                        onLoop.add(tryRead(b));
                    }
                })
                .block(TIMEOUT);
        assertThat(onLoop).hasSize(count - 1).containsOnly("refused");
        assertThat(kept).hasSize(count).extracting(LentBufferConformance::tryRead).containsOnly("refused");
        sending.dispose();
        expectPoolsBackToZero();
    }

    @ParameterizedTest
    @CsvSource({"DISABLED, 64", "DISABLED, 8192", "PARANOID, 64", "PARANOID, 8192"})
    void aBufferRetainedDuringOnNextKeepsItsBytesOnAnyThreadUntilReleased(LeakDetector.Level level, int size) {
        LeakDetector.enable(level);
        int length = (int) Math.min(size, caps().maxMessageSize());
        int count = 300;
        Disposable sending = sendSequence(count, length);
        List<Boolean> intact = server().receive()
                .retain()
                .take(count)
                .publishOn(Schedulers.boundedElastic())
                .index()
                .map(t -> {
                    Buffer b = t.getT2();
                    try {
                        return Messages.verify(b.segment(), t.getT1(), length);
                    } finally {
                        b.release();
                    }
                })
                .collectList()
                .block(TIMEOUT);
        assertThat(intact).hasSize(count).containsOnly(true);
        List<Buffer> kept = Mono.from(server().receive().retain().take(count).collectList())
                .zipWith(Mono.fromRunnable(() -> sendSequence(count, length)).thenReturn(1), (l, x) -> l)
                .block(TIMEOUT);
        for (int i = 0; i < kept.size(); i++) {
            assertThat(Messages.verify(kept.get(i).segment(), i, length)).as("kept message %d", i).isTrue();
            kept.get(i).release();
        }
        sending.dispose();
        expectPoolsBackToZero();
    }
}
