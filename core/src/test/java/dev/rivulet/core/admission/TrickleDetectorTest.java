package dev.rivulet.core.admission;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Windows of one second at 1000 bytes/s: a frame must move 1000 bytes per window. */
class TrickleDetectorTest {

    private static final long SECOND = 1_000_000_000L;

    private final TrickleDetector d = new TrickleDetector(1000, SECOND, 0);
    private long now;

    /** One window later, with the frame in progress at {@code bytes}. */
    private boolean window(long frame, long bytes) {
        now += SECOND;
        return d.trickling(now, true, frame, bytes);
    }

    @Test
    void aFrameTrickledOverTwoWindowsIsCut() {
        assertThat(window(7, 10)).as("first window only starts judging this frame").isFalse();
        assertThat(window(7, 20)).as("one slow window").isFalse();
        assertThat(window(7, 30)).as("a second slow, non-empty window").isTrue();
    }

    @Test
    void aStoppedPeerIsLeftToLivenessHoweverLongItStays() {
        window(7, 10);
        assertThat(window(7, 500)).isFalse(); // stopped half-way through this window
        for (int i = 0; i < 20; i++) {
            assertThat(window(7, 500)).as("nothing arrives: the peer timeout's business").isFalse();
        }
    }

    @Test
    void alternatingSilenceAndSingleBytesIsStillATrickle() {
        window(7, 10);
        assertThat(window(7, 10)).isFalse();
        assertThat(window(7, 11)).isTrue();
    }

    @Test
    void aFrameMovingAtTheRateIsNeverCut() {
        long bytes = 0;
        window(7, bytes);
        for (int i = 0; i < 20; i++) {
            bytes += 1000;
            assertThat(window(7, bytes)).isFalse();
        }
    }

    @Test
    void windowsWhereThisSideStoppedReadingAreNotJudged() {
        window(7, 10);
        d.pausedByUs();
        assertThat(window(7, 11)).isFalse();
        assertThat(window(7, 12)).as("first judged slow window after the pause").isFalse();
        assertThat(window(7, 13)).isTrue();
    }

    @Test
    void completedFramesAndTheGapsBetweenThemAreNotJudged() {
        window(7, 10);
        assertThat(window(8, 5)).as("a new frame since").isFalse();
        assertThat(d.trickling(now += SECOND, false, 9, 0)).as("between frames").isFalse();
        assertThat(window(9, 1)).isFalse();
        assertThat(window(9, 2)).isFalse();
        assertThat(window(9, 3)).isTrue();
    }

    @Test
    void checksWithinAWindowDoNothing() {
        window(7, 10);
        window(7, 11);
        assertThat(d.trickling(now + SECOND / 2, true, 7, 12)).isFalse();
    }
}
