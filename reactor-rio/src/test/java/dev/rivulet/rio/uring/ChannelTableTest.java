package dev.rivulet.rio.uring;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class ChannelTableTest {

    @Test
    void idsArePositiveDistinctAndNeverTheEventfdsZero() {
        ChannelTable<Object> t = new ChannelTable<>();
        Set<Integer> ids = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            Object c = new Object();
            int id = t.add(c);
            assertThat(id).isPositive();
            assertThat(ids.add(id)).isTrue();
            assertThat(t.get(id)).isSameAs(c);
        }
        assertThat(t.size()).isEqualTo(1000);
    }

    @Test
    void aStaleIdDoesNotFindTheChannelThatTookItsSlot() {
        ChannelTable<Object> t = new ChannelTable<>();
        int first = t.add("first");
        t.remove(first);
        int second = t.add("second");
        assertThat(second).isNotEqualTo(first);
        assertThat(t.get(first)).isNull();
        t.remove(first); // stale: must not remove the newer channel
        assertThat(t.get(second)).isEqualTo("second");
        assertThat(t.size()).isEqualTo(1);
        t.remove(second);
        assertThat(t.size()).isZero();
    }

    @Test
    void unknownIdsFindNothingAndRemoveAllEmptiesTheTable() {
        ChannelTable<Object> t = new ChannelTable<>();
        assertThat(t.get(0)).isNull();
        assertThat(t.get(-5)).isNull();
        assertThat(t.get(Integer.MAX_VALUE)).isNull();
        for (int i = 0; i < 40; i++) {
            t.add(i);
        }
        t.remove(t.add("gone"));
        assertThat(t.removeAll()).hasSize(40);
        assertThat(t.size()).isZero();
    }
}
