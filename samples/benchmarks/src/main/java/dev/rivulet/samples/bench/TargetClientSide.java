package dev.rivulet.samples.bench;

import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.RemoteMemory;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import static dev.rivulet.samples.bench.BenchWire.TARGET;
import static dev.rivulet.samples.bench.BenchWire.seq;
import static dev.rivulet.samples.bench.BenchWire.type;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/** A bench client's {@code receive()} subscriber that also takes {@link TargetServerSide}'s TARGET: where to put. */
public class TargetClientSide extends ClientSide {
    public final CompletableFuture<RemoteMemory> target = new CompletableFuture<>();

    public TargetClientSide(Consumer<Throwable> report) {
        super(report);
    }

    @Override
    protected void onOther(long h, MemorySegment seg, Buffer b) {
        if (type(h) != TARGET) {
            super.onOther(h, seg, b);
            return;
        }
        target.complete(RemoteMemory.fromBytes(seg.asSlice(8, seq(h)).toArray(JAVA_BYTE)));
    }

    @Override
    protected void fail(Throwable e) {
        target.completeExceptionally(e);
        super.fail(e);
    }
}
