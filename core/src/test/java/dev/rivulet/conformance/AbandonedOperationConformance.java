package dev.rivulet.conformance;

import dev.rivulet.core.Operation;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RemoteMemory;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a caller may do with the memory of an operation it abandoned (cancelled, timed out): the provider may still
 * touch it until the operation's completion arrives, and {@link MemoryRegion#whenUnpinned()} says when that is over.
 */
public abstract class AbandonedOperationConformance extends ReceiveCancelConformance {

    private static final int SIZE = 1 << 20;
    private static final int ROUNDS = 50;

    @Test
    void theDestinationOfAnAbandonedGetIsTheCallersAgainOnceUnpinned() {
        Assumptions.assumeTrue(caps().supports(Operation.GET), "no gets on this transport");
        MemoryRegion source = server().memory().allocateRegion(SIZE, GRANTABLE);
        source.segment().fill((byte) 7);
        RemoteMemory remote = exposeOnServer(source);
        MemoryRegion destination = client().memory().allocateRegion(SIZE);
        MemorySegment bytes = destination.segment();
        for (int round = 0; round < ROUNDS; round++) {
            bytes.fill((byte) 0);
            Disposable get = client().get(remote, destination.slice()).subscribe(null, e -> { });
            get.dispose(); // abandoned at once: it may be posted, or not
            destination.whenUnpinned().block(TIMEOUT);
            // From here the memory is the caller's: nothing the abandoned get does lands any more (one still on its
            // way to the polling thread may pin the region there for a moment, but is dropped unposted).
            bytes.fill((byte) 1);
            client().fence().block(TIMEOUT);
            assertThat(bytes.get(ValueLayout.JAVA_BYTE, SIZE - 1)).isEqualTo((byte) 1);
            assertThat(bytes.get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 1);
        }
        assertThat(destination.whenUnpinned().block(Duration.ofSeconds(1))).isNull();
        destination.close();
        source.close();
    }
}
