package dev.rivulet.core.memory;

import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.internal.MemoryAccess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A message in two parts: the head owns its body's reference and gives it back with its own last release. */
class BufferBodyTest {

    private static final MemoryAccess MEMORY = Internals.memory();

    private final MemoryDomain domain = new MemoryDomain("body", (seg, access, key) ->
            new NativeRegistration(key, seg.address(), MemorySegment.NULL, new byte[0], () -> { }));

    @AfterEach
    void close() {
        domain.close();
    }

    @Test
    void theHeadsLastReleaseReleasesItsBody() {
        Buffer head = domain.allocate(16);
        Buffer body = domain.allocate(4096);
        body.retain(); // the test's own reference, to watch the count
        MEMORY.attachBody(head, body);
        assertThat(MEMORY.body(head)).isSameAs(body);

        head.retain();
        head.release();
        assertThat(body.refCnt()).as("not while the head is held").isEqualTo(2);
        head.release();
        assertThat(body.refCnt()).as("the head's reference went with it").isEqualTo(1);
        body.release();
        assertThat(domain.buffers().outstanding()).isZero();
    }

    @Test
    void aHeadReusedByItsPoolCarriesNoBody() {
        Buffer head = domain.allocate(16);
        MEMORY.attachBody(head, domain.allocate(4096));
        head.release();
        Buffer again = domain.allocate(16);
        assertThat(MEMORY.body(again)).isNull();
        again.release();
        assertThat(domain.buffers().outstanding()).isZero();
    }

    @Test
    void aHeadCarriesOneBody() {
        Buffer head = domain.allocate(16);
        Buffer body = domain.allocate(64);
        Buffer other = domain.allocate(64);
        MEMORY.attachBody(head, body);
        assertThatThrownBy(() -> MEMORY.attachBody(head, other)).isInstanceOf(IllegalStateException.class);
        other.release();
        head.release();
        assertThat(domain.buffers().outstanding()).isZero();
    }
}
