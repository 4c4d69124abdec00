package dev.rivulet.rdma.wire;

import dev.rivulet.core.credit.BatchFraming;
import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.memory.NativeRegistration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;

class OwedReceivesTest {

    private final MemoryDomain memory = Internals.memory().newDomain("test", (segment, access, key) ->
            new NativeRegistration(key, segment.address(), MemorySegment.NULL, new byte[0], () -> { }));
    private final OwedReceives owed = new OwedReceives();

    @AfterEach
    void close() {
        Internals.memory().close(memory);
    }

    @Test
    void theBuffersForProtocolWordsArePostedFirst() {
        owed.owe(5);
        assertThat(owed.total()).isEqualTo(OwedReceives.CONTROL_SLOTS + 5);
        owed.posted(OwedReceives.CONTROL_SLOTS - 1);
        assertThat(owed.control()).isEqualTo(1);
        owed.posted(3);
        assertThat(owed.control()).isZero();
        assertThat(owed.total()).isEqualTo(3);
    }

    @Test
    void aConsumedProtocolWordsBufferIsReplaced() {
        owed.posted(OwedReceives.CONTROL_SLOTS);
        owed.replace();
        assertThat(owed.control()).isEqualTo(1);
    }

    @Test
    void theBuffersACoalescedFrameLeftPostedCoverTheNextGrants() {
        owed.posted(OwedReceives.CONTROL_SLOTS);
        Buffer frame = memory.allocate(256);
        long end = 0;
        for (int i = 0; i < 3; i++) {
            end = BatchFraming.pack(frame.capacitySegment(), end, MemorySegment.ofArray(new byte[8]), 8);
        }
        assertThat(owed.dataArrived(ControlWord.encode(ControlWord.BATCH, 0), frame, end)).isEqualTo(3);
        assertThat(frame.length()).isEqualTo((int) end);
        owed.owe(3);
        assertThat(owed.total()).as("two of the three credits are covered by posted buffers").isEqualTo(1);
        frame.release();
    }

    @Test
    void aMessageIsOne() {
        Buffer b = memory.allocate(64);
        assertThat(owed.dataArrived(ControlWord.encode(ControlWord.DATA, 1), b, 10)).isEqualTo(1);
        assertThat(b.length()).isEqualTo(10);
        b.release();
    }

    @Test
    void onlyMessagesAndFramesCarryData() {
        assertThat(OwedReceives.carriesData(ControlWord.encode(ControlWord.DATA, 0))).isTrue();
        assertThat(OwedReceives.carriesData(ControlWord.encode(ControlWord.BATCH, 0))).isTrue();
        assertThat(OwedReceives.carriesData(ControlWord.encode(ControlWord.CREDIT, 4))).isFalse();
        assertThat(OwedReceives.carriesData(ControlWord.encode(ControlWord.CLOSE, 0))).isFalse();
    }
}
