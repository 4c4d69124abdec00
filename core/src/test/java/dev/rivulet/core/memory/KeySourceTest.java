package dev.rivulet.core.memory;

import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class KeySourceTest {

    @Test
    void keysAcrossManyBatchesAreNeverZeroAndNeverRepeat() {
        KeySource keys = new KeySource();
        Set<Long> seen = new java.util.HashSet<>();
        for (int i = 0; i < 100_000; i++) {
            long k = keys.next();
            assertThat(k).isNotZero();
            assertThat(seen.add(k)).as("key %d repeated", i).isTrue();
        }
        // 64-bit keys from a DRBG: over 100 000 of them the bits are balanced (a stuck or reused batch is not)
        long ones = seen.stream().mapToLong(Long::bitCount).sum();
        assertThat(ones / (100_000.0 * 64)).isBetween(0.49, 0.51);
    }

    @Test
    void threadsDrawingAtOnceNeverGetTheSameKey() throws Exception {
        KeySource keys = new KeySource();
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            Future<?>[] drawers = new Future<?>[4];
            for (int t = 0; t < drawers.length; t++) {
                drawers[t] = pool.submit(() -> {
                    for (int i = 0; i < 20_000; i++) {
                        assertThat(seen.add(keys.next())).isTrue();
                    }
                });
            }
            for (Future<?> d : drawers) {
                d.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(seen).hasSize(80_000);
    }
}
