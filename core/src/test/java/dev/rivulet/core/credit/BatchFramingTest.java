package dev.rivulet.core.credit;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class BatchFramingTest {

    @Test
    void packsAndUnpacksInOrderIncludingEmptyMessages() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment frame = arena.allocate(256);
            long off = 0;
            int[] sizes = {0, 1, 17, 0, 100};
            for (int i = 0; i < sizes.length; i++) {
                MemorySegment m = arena.allocate(Math.max(1, sizes[i]));
                m.fill((byte) i);
                off = BatchFraming.pack(frame, off, m, sizes[i]);
            }
            assertThat(BatchFraming.count(frame, off)).isEqualTo(sizes.length);
            List<int[]> seen = new ArrayList<>();
            BatchFraming.unpack(frame, off, (f, o, len) -> seen.add(new int[]{len, len == 0 ? -1
                    : f.get(ValueLayout.JAVA_BYTE, o)}));
            assertThat(seen).extracting(a -> a[0]).containsExactly(0, 1, 17, 0, 100);
            assertThat(seen.get(2)[1]).isEqualTo(2);
        }
    }

    @Test
    void malformedFramesAreRejectedWhole() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment frame = arena.allocate(64);
            long off = BatchFraming.pack(frame, 0, arena.allocate(8), 8);
            assertThat(BatchFraming.count(frame, off - 1)).as("truncated record").isEqualTo(-1);
            assertThat(BatchFraming.count(frame, off + 2)).as("truncated length prefix").isEqualTo(-1);
            frame.set(ValueLayout.JAVA_INT_UNALIGNED, 0, -1);
            assertThat(BatchFraming.count(frame, off)).as("length past the end").isEqualTo(-1);
        }
    }
}
