package dev.rivulet.samples.bench;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.memory.Buffer;
import org.reactivestreams.Subscription;

import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;

import static dev.rivulet.samples.bench.BenchWire.TARGET;
import static dev.rivulet.samples.bench.BenchWire.header;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * A bench server's {@code receive()} subscriber that first tells the client where to put: a {@link BenchWire#TARGET}
 * message carrying the granted window's {@code RemoteMemory.toBytes()}, which {@link TargetClientSide} reads.
 */
public class TargetServerSide extends ServerSide {
    private final byte[] targetHandle;

    public TargetServerSide(Endpoint ep, byte[] targetHandle, Consumer<Throwable> report) {
        super(ep, report);
        this.targetHandle = targetHandle;
    }

    @Override
    public void onSubscribe(Subscription s) {
        super.onSubscribe(s);
        Buffer b = ep.memory().allocate(8 + targetHandle.length);
        MemorySegment seg = b.capacitySegment();
        seg.set(JAVA_LONG_UNALIGNED, 0, header(TARGET, targetHandle.length));
        MemorySegment.copy(MemorySegment.ofArray(targetHandle), 0, seg, 8, targetHandle.length);
        ep.send(b).subscribe(null, report);
    }
}
