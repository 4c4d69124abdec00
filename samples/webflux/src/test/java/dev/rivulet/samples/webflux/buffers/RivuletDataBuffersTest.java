package dev.rivulet.samples.webflux.buffers;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.LeakDetector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.PooledDataBuffer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** A Rivulet buffer handed to Spring as a DataBuffer goes back to its pool exactly once, whoever releases last. */
class RivuletDataBuffersTest {

    private Transport transport;

    @BeforeEach
    void open() {
        LeakDetector.enable();
        LeakDetector.reset();
        transport = Transports.open("local", TransportConfig.defaults());
    }

    @AfterEach
    void close() {
        try {
            LeakDetector.awaitNoLeaks(Duration.ofSeconds(5));
        } finally {
            transport.dispose();
            LeakDetector.disable();
        }
    }

    @Test
    void theDataBufferShowsTheMessageBytesWithoutACopy() {
        Buffer b = transport.memory().allocate(100).write("hello".getBytes(StandardCharsets.UTF_8));
        DataBuffer d = RivuletDataBuffers.wrap(b);
        assertThat(d.readableByteCount()).isEqualTo(5);
        assertThat(d.toString(StandardCharsets.UTF_8)).isEqualTo("hello");
        b.segment().set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) 'j');
        assertThat(d.toString(StandardCharsets.UTF_8)).as("the same memory").isEqualTo("jello");
        assertThat(d).isInstanceOf(PooledDataBuffer.class);
        DataBufferUtils.release(d);
        assertThat(b.refCnt()).isZero();
        assertThat(transport.memory().buffers().outstanding()).isZero();
    }

    @Test
    void theLastOfSeveralReleasesReturnsTheBuffer() {
        Buffer b = transport.memory().allocate(8).write(new byte[8]);
        DataBuffer d = RivuletDataBuffers.wrap(b);
        DataBufferUtils.retain(d); // e.g. a codec that keeps it while Netty writes it
        DataBufferUtils.release(d);
        assertThat(b.refCnt()).as("still held by the other side").isEqualTo(1);
        DataBufferUtils.release(d);
        assertThat(b.refCnt()).isZero();
        assertThat(((PooledDataBuffer) d).isAllocated()).isFalse();
    }
}
