package dev.rivulet.core.interaction;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** The session's table of open streams: what a frame's lookup finds, however streams come and go around it. */
class StreamTableTest {

    private static MuxStream stream(int id) {
        return new MuxStream(null, id, true);
    }

    @Test
    void aLongLivedStreamStaysFoundWhileMillionsComeAndGoAroundIt() {
        StreamTable t = new StreamTable();
        MuxStream events = stream(1);
        t.put(events);
        List<MuxStream> inFlight = new ArrayList<>();
        for (int id = 3; id < 2_000_000; id += 2) {
            MuxStream s = stream(id);
            t.put(s);
            inFlight.add(s);
            if (inFlight.size() > 256) {
                t.remove(inFlight.removeFirst());
            }
            if (id % 100_001 == 0) {
                assertThat(t.get(1)).isSameAs(events);
                assertThat(t.get(id)).isSameAs(s);
                assertThat(t.get(id - 2 * 300)).isNull();
            }
        }
        assertThat(t.get(1)).isSameAs(events);
        assertThat(t.drain()).hasSize(1 + inFlight.size());
        assertThat(t.get(1)).isNull();
    }

    @Test
    void bothSidesIdsAndRemovalsKeepEveryOpenStreamFindable() {
        StreamTable t = new StreamTable();
        List<MuxStream> open = new ArrayList<>();
        for (int id = 1; id <= 5_000; id++) {
            MuxStream s = stream(id);
            t.put(s);
            open.add(s);
        }
        for (int i = 0; i < open.size(); i += 3) {
            t.remove(open.get(i));
        }
        for (int i = 0; i < open.size(); i++) {
            MuxStream s = open.get(i);
            assertThat(t.get(s.id())).isSameAs(i % 3 == 0 ? null : s);
        }
        t.remove(stream(2)); // not the one under id 2: nothing happens
        assertThat(t.get(2)).isSameAs(open.get(1));
    }

    @Test
    void aLookupOnAnotherThreadNeverMissesAStreamThatStaysOpen() throws Exception {
        StreamTable t = new StreamTable();
        MuxStream pinned = stream(7);
        t.put(pinned);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<String> miss = new AtomicReference<>();
        Thread reader = Thread.ofPlatform().start(() -> {
            while (!stop.get()) {
                if (t.get(7) != pinned) {
                    miss.set("stream 7 not found");
                }
            }
        });
        List<MuxStream> recent = new ArrayList<>();
        for (int id = 9; id < 1_000_000; id += 2) {
            MuxStream s = stream(id);
            t.put(s);
            recent.add(s);
            if (recent.size() > 1_000) {
                for (MuxStream r : recent.subList(0, 900)) {
                    t.remove(r);
                }
                recent.subList(0, 900).clear();
            }
        }
        stop.set(true);
        reader.join();
        assertThat(miss.get()).isNull();
    }
}
