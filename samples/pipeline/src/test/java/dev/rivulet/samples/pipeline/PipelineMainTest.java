package dev.rivulet.samples.pipeline;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class PipelineMainTest {

    /** What {@code main} does: the best transport here, and a summary in which all three views agree. */
    @Test
    void runsOnTheBestTransportAndSummarises() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        boolean ok;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            ok = PipelineMain.run(null, 4, 300, PipelineSettings.defaults(), out);
        }
        String printed = bytes.toString(StandardCharsets.UTF_8);

        assertThat(ok).as(printed).isTrue();
        assertThat(printed).startsWith("Rivulet pipeline over ")
                .contains("sender:   1,200 frames in ")
                .contains("receiver: 1,200 frames from 4 sensors aggregated in ")
                .contains("0 duplicates, 0 gaps")
                .endsWith("OK" + System.lineSeparator());
    }
}
